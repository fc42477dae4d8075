import { describe, expect, it } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { RouterProvider, createMemoryRouter } from "react-router";
import { nextQuery, parseQuery, stringifyQuery, useQueryParams, type QueryValue } from "./query-params";

describe("query parameters (spec section 2)", () => {
  it("reads URL-encoded values, '+' as space, repeated keys as arrays", () => {
    expect(parseQuery("?q=hello%20world&repo=stanfordnlp%2Fimdb&s=a+b&f=1&f=2")).toEqual({
      q: "hello world",
      repo: "stanfordnlp/imdb",
      s: "a b",
      f: ["1", "2"],
    });
    expect(parseQuery("")).toEqual({});
  });
  it("writes URL-encoded values and drops empty ones", () => {
    expect(stringifyQuery({ q: "a b&c", page: 2, empty: "", gone: null, none: undefined, list: ["x/y", "z"], nothing: [] })).toBe(
      "?q=a%20b%26c&page=2&list=x%2Fy&list=z",
    );
    expect(stringifyQuery({ a: "" })).toBe("");
  });
  it("replaces history when there was no query, pushes when there was one", () => {
    expect(nextQuery("", { page: 1 })).toEqual({ search: "?page=1", replace: true });
    expect(nextQuery("?page=1", { page: 2 })).toEqual({ search: "?page=2", replace: false });
    expect(nextQuery("?page=1&q=x", { q: "" })).toEqual({ search: "?page=1", replace: false });
  });
  it("the hook navigates with push or replace", async () => {
    let set: (u: Record<string, QueryValue>) => void = () => {};
    function Probe() {
      const [query, setQuery] = useQueryParams();
      set = setQuery;
      return <p>{JSON.stringify(query)}</p>;
    }
    const router = createMemoryRouter([{ path: "/x", element: <Probe /> }], { initialEntries: ["/start", "/x"], initialIndex: 1 });
    render(<RouterProvider router={router} />);
    await act(async () => set({ q: "a b" }));
    expect(router.state.location.search).toBe("?q=a%20b");
    expect(router.state.historyAction).toBe("REPLACE");
    await act(async () => set({ page: 2 }));
    expect(router.state.location.search).toBe("?q=a%20b&page=2");
    expect(router.state.historyAction).toBe("PUSH");
    expect(screen.getByText('{"q":"a b","page":"2"}')).toBeTruthy();
  });
});
