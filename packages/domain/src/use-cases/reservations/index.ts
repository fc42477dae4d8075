export * from "./ports.js";
export * from "./renew-reservations.js";
export * from "./release-reservations.js";
export * from "./get-records-in-progress.js";
export * from "./release-user-reservations.js";
export * from "./set-reservation-timeout.js";
