import "reflect-metadata";
// IndexedDB for the offline answers of the whole-app tests (jsdom has none)
import "fake-indexeddb/auto";
import { afterEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";

// findBy* / waitFor wait up to 10 s (testing-library's default is 1 s): on the shared 2-core machine under load a
// lazy page's chunk took longer to load (router.test.tsx failed so); a wrong state still fails, only later.
configure({ asyncUtilTimeout: 10_000 });

// vitest runs without globals, so testing-library cannot register its own cleanup.
afterEach(() => {
  cleanup();
});
