/** The seeded pseudo-random stream (mulberry32) of the test suites, for randomized tests and the route fuzz (tools/test-harness/src/random.ts). */
export { seededRandom } from "@tessera/test-harness";
