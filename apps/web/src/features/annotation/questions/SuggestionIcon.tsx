/** The suggestion mark, drawn as SVG so it renders the same on every system (no emoji font needed). */
export function SuggestionIcon() {
  return (
    <svg className="suggestion-icon" aria-hidden="true" width="11" height="11" viewBox="0 0 16 16" focusable="false">
      <path
        fill="currentColor"
        d="M8 0l1.8 5.2L15 7l-5.2 1.8L8 14l-1.8-5.2L1 7l5.2-1.8zM13.5 11l.7 1.8 1.8.7-1.8.7-.7 1.8-.7-1.8-1.8-.7 1.8-.7z"
      />
    </svg>
  );
}
