// A forward proxy (HTTP CONNECT and plain HTTP) that lets through only the package registries and
// refuses every other host, writing one line per connection to a log: "allow <host>" or
// "deny <host>". The fresh-machine stage (05-fresh-machine.sh) points HTTP(S)_PROXY at it, so an
// install step that reaches for any other host (Node headers, a prebuilt binary on GitHub, a
// browser download) is both refused and recorded, and the stage fails on any "deny" line.
// Plain Node (no dependencies): it runs before the project's own Node and packages are installed.
//   node registry-proxy.mjs <log-file> <port-file>
import http from "node:http";
import net from "node:net";
import fs from "node:fs";

const [logFile, portFile] = process.argv.slice(2);
if (!logFile || !portFile) {
  console.error("usage: node registry-proxy.mjs <log-file> <port-file>");
  process.exit(2);
}
const ALLOWED = new Set(
  (process.env.TESSERA_ALLOWED_HOSTS ?? "registry.npmjs.org,pypi.org,files.pythonhosted.org,deb.debian.org,security.debian.org")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean),
);
const log = (verdict, host) => fs.appendFileSync(logFile, `${verdict} ${host}\n`);
const allowed = (host) => ALLOWED.has(host.toLowerCase());

const server = http.createServer((req, res) => {
  // Plain HTTP through the proxy: the request line carries an absolute URL.
  let target;
  try {
    target = new URL(req.url);
  } catch {
    res.writeHead(400).end("absolute URL expected\n");
    return;
  }
  if (!allowed(target.hostname)) {
    log("deny", target.hostname);
    res.writeHead(403, { "content-type": "text/plain" }).end(`tessera registry proxy: ${target.hostname} is not a package registry\n`);
    return;
  }
  log("allow", target.hostname);
  const upstream = http.request(
    { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers: req.headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
});

server.on("connect", (req, socket, head) => {
  const [host, portText] = (req.url ?? "").split(":");
  const port = Number(portText || 443);
  if (!host || !allowed(host)) {
    log("deny", host || "(none)");
    socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
    return;
  }
  log("allow", host);
  const upstream = net.connect(port, host, () => {
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  upstream.on("error", () => socket.destroy());
  socket.on("error", () => upstream.destroy());
});

server.listen(0, "127.0.0.1", () => {
  fs.writeFileSync(portFile, String(server.address().port));
});
