/** The Argilla server version Tessera answers as (GET /api/v1/version; the SDK checks it). */
export const SERVER_VERSION = "2.8.0";
