import { describe, expect, it } from "vitest";
import { parseQuery, stringifyQuery } from "../../shared/query-params";
import { criteriaFromQuery, criteriaSearch, criteriaToQuery, viewOfSearch } from "./criteria-url";

describe("annotation criteria in the URL", () => {
  it("round-trips page, mode, size, status, search, filters, sort and similarity", () => {
    const c = criteriaFromQuery("d", {});
    expect(c.page.mode).toBe("focus");
    expect(c.status).toBe("pending");
    c.page.page = 3;
    c.page.mode = "bulk";
    c.page.size = 50;
    c.status = "draft";
    c.searchText = "hello world";
    c.searchField = "text";
    c.metadata = [{ kind: "terms", name: "split", values: ["train"] }];
    c.sort = [{ key: { entity: "record", property: "inserted_at" }, order: "desc" }];
    c.similarity = { recordId: "r1", vectorName: "v", limit: 50, order: "least" };
    const search = stringifyQuery(criteriaToQuery(c));
    expect(search).toContain("_page=3~50");
    const back = criteriaFromQuery("d", parseQuery(search));
    expect(back.toSearchBody()).toEqual(c.toSearchBody());
    expect(back.page).toMatchObject({ page: 3, mode: "bulk", size: 50 });
  });
  it("keeps response and suggestion filters in _response and _suggestion", () => {
    const c = criteriaFromQuery("d", {});
    c.responses = [{ kind: "terms", question: "sentiment", values: ["positive"] }];
    c.suggestions = [
      { kind: "terms", question: "sentiment", property: "agent", values: ["gpt-4"] },
      { kind: "range", question: "sentiment", property: "score", ge: 0.5, le: 1 },
    ];
    const query = criteriaToQuery(c);
    expect(JSON.parse(String(query._response))).toEqual(c.responses);
    expect(JSON.parse(String(query._suggestion))).toEqual(c.suggestions);
    const back = criteriaFromQuery("d", parseQuery(stringifyQuery(query)));
    expect([back.responses, back.suggestions]).toEqual([c.responses, c.suggestions]);
    expect(criteriaToQuery(criteriaFromQuery("d", {}))).toMatchObject({ _response: null, _suggestion: null });
  });
  it("falls back to page size 10 for sizes not offered and ignores broken JSON", () => {
    const c = criteriaFromQuery("d", { _page: "2~33", _metadata: "{broken", _status: "weird" });
    expect(c.page).toMatchObject({ page: 2, mode: "bulk", size: 10 });
    expect(c.metadata).toEqual([]);
    expect(c.status).toBe("pending");
  });
  it("reads a link as the view it shows, whatever the order, encoding, defaults left out or other parameters", () => {
    const c = criteriaFromQuery("d", { _page: "3", _search: "news item", _metadata: '[{"kind":"range","name":"length","ge":5}]' });
    const written = criteriaSearch(c);
    expect(written).toBe(
      "?_page=3&_status=pending&_search=news%20item&_metadata=%5B%7B%22kind%22%3A%22range%22%2C%22name%22%3A%22length%22%2C%22ge%22%3A5%7D%5D",
    );
    expect(viewOfSearch("d", written)).toBe(written);
    expect(viewOfSearch("d", '?_metadata=[{"kind":"range","name":"length","ge":5}]&_search=news+item&_page=3&utm_source=mail')).toBe(
      written,
    );
    expect(viewOfSearch("d", "?_search=news%20item&_page=3")).not.toBe(written);
    expect(viewOfSearch("d", "?_search=news&_page=1")).toBe("?_page=1&_status=pending&_search=news");
    expect(viewOfSearch("d", "?_search=news&_page=1")).not.toBe(viewOfSearch("d", "?_search=news&_page=2"));
  });
});
