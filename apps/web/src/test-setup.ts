import "reflect-metadata";
// IndexedDB for the offline answers of the whole-app tests (jsdom has none)
import "fake-indexeddb/auto";
import { afterEach } from "vitest";
import { cleanup } from "@testing-library/react";

// vitest runs without globals, so testing-library cannot register its own cleanup.
afterEach(() => {
  cleanup();
});
