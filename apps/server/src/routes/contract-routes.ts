/**
 * Every (method, path) of the HTTP contract (`shared/reference/api-contract.md`, sections 1-6),
 * under `/api/v1`, with `{param}` placeholders. `contract.test.ts` checks the server registers each
 * one, so a missing endpoint fails the build. Keep it in step with the contract.
 */
export interface ContractRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  section: string;
}

const r = (method: ContractRoute["method"], path: string, section: string): ContractRoute => ({ method, path, section });

export const CONTRACT_ROUTES: readonly ContractRoute[] = [
  // 1. Authentication
  r("POST", "/token", "1.2"),
  r("GET", "/me", "1.3"),
  // 3.1 Status / version / settings
  r("GET", "/version", "3.1"),
  r("GET", "/status", "3.1"),
  r("GET", "/settings", "3.1"),
  // 3.2 Users
  r("GET", "/users", "3.2"),
  r("GET", "/users/{user_id}", "3.2"),
  r("POST", "/users", "3.2"),
  r("PATCH", "/users/{user_id}", "3.2"),
  r("PUT", "/users/{user_id}", "5.3"),
  r("DELETE", "/users/{user_id}", "3.2"),
  r("GET", "/users/{user_id}/workspaces", "3.2"),
  // 3.3 Workspaces
  r("POST", "/workspaces", "3.3"),
  r("GET", "/workspaces/{workspace_id}", "3.3"),
  r("DELETE", "/workspaces/{workspace_id}", "3.3"),
  r("GET", "/me/workspaces", "3.3"),
  r("GET", "/workspaces/{workspace_id}/users", "3.3"),
  r("POST", "/workspaces/{workspace_id}/users", "3.3"),
  r("DELETE", "/workspaces/{workspace_id}/users/{user_id}", "3.3"),
  // 3.4 Datasets
  r("GET", "/me/datasets", "3.4"),
  r("POST", "/datasets", "3.4"),
  r("GET", "/datasets/{dataset_id}", "3.4"),
  r("PATCH", "/datasets/{dataset_id}", "3.4"),
  r("DELETE", "/datasets/{dataset_id}", "3.4"),
  r("PUT", "/datasets/{dataset_id}/publish", "3.4"),
  r("GET", "/datasets/{dataset_id}/progress", "3.4"),
  r("GET", "/datasets/{dataset_id}/users/progress", "3.4"),
  r("GET", "/me/datasets/{dataset_id}/metrics", "3.4"),
  // 3.5 Fields
  r("GET", "/datasets/{dataset_id}/fields", "3.5"),
  r("POST", "/datasets/{dataset_id}/fields", "3.5"),
  r("PATCH", "/fields/{field_id}", "3.5"),
  r("DELETE", "/fields/{field_id}", "3.5"),
  // 3.6 Questions
  r("GET", "/datasets/{dataset_id}/questions", "3.6"),
  r("POST", "/datasets/{dataset_id}/questions", "3.6"),
  r("PATCH", "/questions/{question_id}", "3.6"),
  r("DELETE", "/questions/{question_id}", "3.6"),
  // 3.7 Metadata properties
  r("POST", "/datasets/{dataset_id}/metadata-properties", "3.7"),
  r("GET", "/me/datasets/{dataset_id}/metadata-properties", "3.7"),
  r("GET", "/metadata-properties/{metadata_property_id}/metrics", "3.7"),
  r("PATCH", "/metadata-properties/{metadata_property_id}", "3.7"),
  r("DELETE", "/metadata-properties/{metadata_property_id}", "3.7"),
  // 3.8 Vector settings
  r("GET", "/datasets/{dataset_id}/vectors-settings", "3.8"),
  r("POST", "/datasets/{dataset_id}/vectors-settings", "3.8"),
  r("PATCH", "/vectors-settings/{vector_settings_id}", "3.8"),
  r("DELETE", "/vectors-settings/{vector_settings_id}", "3.8"),
  // 3.9 Records (single record)
  r("GET", "/records/{record_id}", "3.9"),
  r("PATCH", "/records/{record_id}", "3.9"),
  r("DELETE", "/records/{record_id}", "3.9"),
  r("POST", "/records/{record_id}/responses", "3.9"),
  r("GET", "/records/{record_id}/suggestions", "3.9"),
  r("PUT", "/records/{record_id}/suggestions", "3.9"),
  r("DELETE", "/records/{record_id}/suggestions", "3.9"),
  // 3.10 Records bulk and dataset-level record routes (incl. the legacy POST/PATCH)
  r("POST", "/datasets/{dataset_id}/records/bulk", "3.10"),
  r("PUT", "/datasets/{dataset_id}/records/bulk", "3.10"),
  r("POST", "/datasets/{dataset_id}/records", "3.10"),
  r("PATCH", "/datasets/{dataset_id}/records", "3.10"),
  r("GET", "/datasets/{dataset_id}/records", "3.10"),
  r("DELETE", "/datasets/{dataset_id}/records", "3.10"),
  r("GET", "/datasets/{dataset_id}/records/search/suggestions/options", "3.10"),
  // 3.11 Responses
  r("PUT", "/responses/{response_id}", "3.11"),
  r("DELETE", "/responses/{response_id}", "3.11"),
  r("POST", "/me/responses/bulk", "3.11"),
  // 3.12 Suggestions
  r("DELETE", "/suggestions/{suggestion_id}", "3.12"),
  // 3.14 Jobs
  r("GET", "/jobs/{job_id}", "3.14"),
  // 3.15 Hub import/export
  r("POST", "/datasets/{dataset_id}/import", "3.15"),
  r("POST", "/datasets/{dataset_id}/export", "3.15"),
  // 3.16 Webhooks
  r("GET", "/webhooks", "3.16"),
  r("POST", "/webhooks", "3.16"),
  r("PATCH", "/webhooks/{webhook_id}", "3.16"),
  r("DELETE", "/webhooks/{webhook_id}", "3.16"),
  r("POST", "/webhooks/{webhook_id}/ping", "3.16"),
  // 3.17 OAuth2
  r("GET", "/oauth2/providers", "3.17"),
  r("GET", "/oauth2/providers/{provider}/authentication", "3.17"),
  r("GET", "/oauth2/providers/{provider}/access-token", "3.17"),
  // 4. Records search
  r("POST", "/datasets/{dataset_id}/records/search", "4"),
  r("POST", "/me/datasets/{dataset_id}/records/search", "4"),
];

/**
 * Routes the contract says the server does NOT have (5.3: the SDK's stray legacy
 * `POST /workspaces/{wid}/users/{uid}`); they must stay unregistered (404).
 */
export const ABSENT_CONTRACT_ROUTES: readonly ContractRoute[] = [r("POST", "/workspaces/{workspace_id}/users/{user_id}", "5.3")];
