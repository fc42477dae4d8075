/** English texts of record downloads and uploads (merged into the app's `transfer` namespace object). */
const transfer = {
  download: {
    open: "Download",
    title: "Download records",
    format: "Format",
    formats: { jsonl: "JSON Lines", csv: "CSV", parquet: "Parquet" },
    scope: "Records",
    scopes: { filtered: "Records matching the current filters", all: "All records" },
    ownOnly: "Your download holds only your own responses.",
    submit: "Download",
    busy: "Preparing your download…",
    done: "Downloaded {{filename}}",
    failed: "The records could not be downloaded. Try again.",
    close: "Close",
  },
};
export default transfer;
