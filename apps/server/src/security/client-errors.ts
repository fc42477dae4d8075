import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

/**
 * Fastify's `clientErrorHandler` (issue 21): a request Node's HTTP parser refuses before any route
 * sees it (a URL or headers over the header limit: 431; a malformed request line: 400; a request
 * that took too long: 408) is answered with its status, a JSON detail and `Connection: close`, then
 * the socket is ended. A client that kept the connection alive (the SDK's httpx does) then opens a
 * new one for its next request instead of writing into a socket the server is closing (a reset).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || error.code === "EPIPE" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const detail =
    status === 431
      ? "The request's URL or headers are too large"
      : status === 408
        ? "The request took too long"
        : "The request is malformed";
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\n\r\n${body}`,
  );
}
