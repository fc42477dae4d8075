"""Times the official Argilla SDK's `dataset.records.log` against Tessera.

Usage: sdk_log.py API_URL API_KEY WORKSPACE DATASET_NAME RECORDS_JSONL
Prints one JSON line: {"records": n, "seconds": s, "records_per_second": r}.
"""
import json
import sys
import time

import argilla as rg


def main() -> None:
    api_url, api_key, workspace, name, path = sys.argv[1:6]
    client = rg.Argilla(api_url=api_url, api_key=api_key)
    settings = rg.Settings(
        guidelines="Classify the sentiment and the topics of the text.",
        fields=[rg.TextField(name="text"), rg.TextField(name="summary", required=False)],
        questions=[
            rg.LabelQuestion(name="sentiment", labels=["positive", "negative", "neutral"]),
            rg.MultiLabelQuestion(name="topics", labels=["politics", "sports", "science", "culture", "business"], required=False),
        ],
        metadata=[
            rg.TermsMetadataProperty(name="source"),
            rg.IntegerMetadataProperty(name="length"),
            rg.FloatMetadataProperty(name="quality"),
        ],
        vectors=[rg.VectorField(name="embedding", dimensions=384)],
    )
    dataset = rg.Dataset(name=name, workspace=workspace, settings=settings, client=client).create()
    records = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            s = r["suggestions"]
            records.append(rg.Record(
                id=r["external_id"],
                fields=r["fields"],
                metadata=r["metadata"],
                vectors=r["vectors"],
                suggestions=[
                    rg.Suggestion(question_name="sentiment", value=s["sentiment"]["value"], score=s["sentiment"]["score"], agent="bench-model-v1"),
                    rg.Suggestion(question_name="topics", value=s["topics"]["value"], score=s["topics"]["score"], agent="bench-model-v1"),
                ],
            ))
    started = time.perf_counter()
    dataset.records.log(records, batch_size=256)
    seconds = time.perf_counter() - started
    print(json.dumps({"records": len(records), "seconds": round(seconds, 2), "records_per_second": round(len(records) / seconds)}))


if __name__ == "__main__":
    main()
