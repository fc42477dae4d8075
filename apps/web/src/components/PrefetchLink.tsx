import { useEffect, useRef } from "react";
import { Link, type LinkProps } from "react-router";
import { LINK_PREFETCH_IDLE_TIMEOUT_MS } from "@tessera/domain";
import { canPrefetch, prefetchPath } from "../app/lazy-page";

/**
 * A router link that prefetches its page's code chunk when it becomes visible (spec section 1),
 * unless the browser is offline, on 2g or saving data. Use it instead of <Link> for page links.
 */
export function PrefetchLink(props: LinkProps) {
  const ref = useRef<HTMLAnchorElement>(null);
  const to = typeof props.to === "string" ? props.to : (props.to.pathname ?? "");
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof IntersectionObserver === "undefined") return;
    let cancelIdle: (() => void) | null = null;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting) || !canPrefetch()) return;
      observer.disconnect();
      if (typeof requestIdleCallback === "function") {
        const handle = requestIdleCallback(() => prefetchPath(to), { timeout: LINK_PREFETCH_IDLE_TIMEOUT_MS });
        cancelIdle = () => cancelIdleCallback(handle);
      } else {
        const handle = setTimeout(() => prefetchPath(to), 1);
        cancelIdle = () => clearTimeout(handle);
      }
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      cancelIdle?.();
    };
  }, [to]);
  return <Link ref={ref} {...props} />;
}
