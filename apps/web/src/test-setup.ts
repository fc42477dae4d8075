import "reflect-metadata";
import { afterEach } from "vitest";
import { cleanup } from "@testing-library/react";

// vitest runs without globals, so testing-library cannot register its own cleanup.
afterEach(() => { cleanup(); });
