/** The search filters the annotation page sends (domain RecordCriteria.toSearchBody); shared by api.ts, latency.ts and team-mix.ts. */

/** The pending queue: the caller has not answered, the record is not completed. */
export const PENDING_FILTERS = {
  and: [
    { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
    { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
  ],
};
/** The annotation page's Submitted view: the caller's submitted records. */
export const SUBMITTED_FILTERS = { and: [{ type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] }] };
