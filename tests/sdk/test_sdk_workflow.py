"""The official argilla==2.8.0 SDK, unchanged, against Tessera: the whole life of a dataset."""
import math
import random
import uuid

import httpx
import pytest
import argilla as rg

N_RECORDS = 2000
DIMS = 8
SOURCES = ["news", "forum", "review"]
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def _vector(i: int) -> list[float]:
    rnd = random.Random(i)
    v = [rnd.uniform(-1, 1) for _ in range(DIMS)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def _text(i: int) -> str:
    rnd = random.Random(10_000 + i)
    words = [rnd.choice(WORDS) for _ in range(12)]
    if i % 100 == 0:
        words.append("zanzibar")  # a rare word: exactly N_RECORDS / 100 records carry it
    return " ".join(words)


@pytest.fixture(scope="module")
def team(client, server):
    ws = rg.Workspace(name=f"team-{uuid.uuid4().hex[:8]}", client=client).create()
    annotators = []
    for n in (1, 2):
        user = rg.User(username=f"ann{n}-{uuid.uuid4().hex[:6]}", password="annotator-pass", role="annotator", client=client).create()
        ws.add_user(user)
        annotators.append(user)
    return ws, annotators


@pytest.fixture(scope="module")
def dataset(client, team):
    ws, _ = team
    settings = rg.Settings(
        guidelines="Label the sentiment of each text.",
        fields=[
            rg.TextField(name="text", use_markdown=False),
            rg.ImageField(name="image", required=False),
            rg.ChatField(name="chat", required=False),
            rg.CustomField(name="custom", template="<div>{{record.fields.custom.title}}</div>", required=False),
        ],
        questions=[
            rg.LabelQuestion(name="sentiment", labels=["positive", "negative", "neutral"]),
            rg.MultiLabelQuestion(name="topics", labels=["sports", "politics", "tech", "culture"], required=False),
            rg.RatingQuestion(name="quality", values=[1, 2, 3, 4, 5], required=False),
            rg.TextQuestion(name="comment", required=False, use_markdown=True),
            rg.RankingQuestion(name="preference", values=["a", "b", "c"], required=False),
            rg.SpanQuestion(name="entities", field="text", labels=["PER", "ORG", "LOC"], required=False, allow_overlapping=True),
        ],
        metadata=[
            rg.TermsMetadataProperty(name="source", options=SOURCES),
            rg.IntegerMetadataProperty(name="length", min=0, max=1000),
            rg.FloatMetadataProperty(name="confidence", min=0.0, max=1.0, visible_for_annotators=False),
        ],
        vectors=[rg.VectorField(name="embedding", dimensions=DIMS)],
        distribution=rg.TaskDistribution(min_submitted=2),
    )
    ds = rg.Dataset(name=f"sdk-suite-{uuid.uuid4().hex[:6]}", workspace=ws, settings=settings, client=client).create()
    return ds


def _records(count: int) -> list[rg.Record]:
    out = []
    for i in range(count):
        out.append(rg.Record(
            id=f"ext-{i}",
            fields={
                "text": _text(i),
                "chat": [{"role": "user", "content": f"hello {i}"}, {"role": "assistant", "content": "hi"}],
                "custom": {"title": f"custom {i}"},
                **({"image": "https://example.org/cat.png"} if i % 2 == 0 else {}),
            },
            metadata={"source": SOURCES[i % 3], "length": i % 500, "confidence": (i % 10) / 10},
            vectors={"embedding": _vector(i)},
            suggestions=[
                rg.Suggestion("sentiment", ["positive", "negative", "neutral"][i % 3], score=0.5 + (i % 5) / 10, agent="model-a"),
                rg.Suggestion("topics", ["sports", "tech"], score=[0.9, 0.4], agent="model-b"),
            ],
        ))
    return out


def test_dataset_is_created_published_and_readable(client, dataset, team):
    ws, _ = team
    again = client.datasets(name=dataset.name, workspace=ws.name)
    assert again is not None and str(again.id) == str(dataset.id)
    assert [f.name for f in again.settings.fields] == ["text", "image", "chat", "custom"]
    assert sorted(q.name for q in again.settings.questions) == sorted(["sentiment", "topics", "quality", "comment", "preference", "entities"])
    assert sorted(m.name for m in again.settings.metadata) == ["confidence", "length", "source"]
    assert [v.name for v in again.settings.vectors] == ["embedding"]
    assert again.settings.distribution.min_submitted == 2
    assert again.settings.guidelines == "Label the sentiment of each text."


def test_log_2000_records_and_read_them_back(dataset):
    dataset.records.log(_records(N_RECORDS))
    back = list(dataset.records(with_suggestions=True, with_vectors=True, with_responses=True))
    assert len(back) == N_RECORDS
    by_id = {r.id: r for r in back}
    for i in (0, 1, 999, N_RECORDS - 1):
        r = by_id[f"ext-{i}"]
        assert r.fields["text"] == _text(i)
        assert r.metadata["source"] == SOURCES[i % 3]
        assert r.metadata["length"] == i % 500
        assert r.vectors["embedding"] == pytest.approx(_vector(i), abs=1e-5)
        sugg = {s.question_name: s for s in r.suggestions}
        assert sugg["sentiment"].value == ["positive", "negative", "neutral"][i % 3]
        assert sugg["sentiment"].agent == "model-a"
        assert sugg["topics"].value == ["sports", "tech"]


def test_logging_again_upserts_instead_of_duplicating(dataset):
    again = _records(10)
    for r in again:
        r.metadata["length"] = 999
    dataset.records.log(again)
    assert dataset.progress()["total"] == N_RECORDS
    updated = list(dataset.records(query=rg.Query(filter=rg.Filter(("metadata.length", "==", 999)))))
    assert sorted(r.id for r in updated) == sorted(f"ext-{i}" for i in range(10))


def test_filter_by_metadata_terms_and_range(dataset):
    news = list(dataset.records(query=rg.Query(filter=rg.Filter(("metadata.source", "==", "news")))))
    assert len(news) == len([i for i in range(N_RECORDS) if i % 3 == 0])
    ranged = list(dataset.records(query=rg.Query(filter=rg.Filter([("metadata.length", ">=", 100), ("metadata.length", "<=", 109)]))))
    expected = [i for i in range(N_RECORDS) if 100 <= (i % 500) <= 109 and i >= 10]
    assert len(ranged) == len(expected)


def test_text_query(dataset):
    hits = list(dataset.records(query=rg.Query(query="zanzibar")))
    assert sorted(r.id for r in hits) == sorted(f"ext-{i}" for i in range(0, N_RECORDS, 100))


def test_similarity_query_finds_the_record_itself_first(dataset):
    target = _vector(123)
    hits = list(dataset.records(query=rg.Query(similar=rg.Similar(name="embedding", value=target)), limit=5))
    assert hits, "similarity search returned nothing"
    # With a similarity query the SDK yields (record, score) pairs, best first.
    (best, score), *rest = hits
    assert best.id == "ext-123"
    assert score == pytest.approx(1.0, abs=1e-4)
    assert all(s <= score for _, s in rest)


def test_similarity_least_similar_and_with_a_metadata_filter(dataset):
    target = _vector(123)

    def cosine(i: int) -> float:
        return sum(a * b for a, b in zip(target, _vector(i)))

    least = list(dataset.records(query=rg.Query(similar=rg.Similar(name="embedding", value=target, most_similar=False)), limit=5))
    assert [r.id for r, _ in least] == [f"ext-{i}" for i in sorted(range(N_RECORDS), key=cosine)[:5]]
    assert [s for _, s in least] == pytest.approx([cosine(i) for i in sorted(range(N_RECORDS), key=cosine)[:5]], abs=1e-4)

    # ext-123 is a "news" record: among the "forum" ones its nearest neighbours, best first.
    forum = [i for i in range(N_RECORDS) if SOURCES[i % 3] == "forum"]
    hits = list(dataset.records(query=rg.Query(similar=rg.Similar(name="embedding", value=target), filter=rg.Filter(("metadata.source", "==", "forum"))), limit=5))
    assert [r.id for r, _ in hits] == [f"ext-{i}" for i in sorted(forum, key=cosine, reverse=True)[:5]]


def test_responses_from_two_annotators_follow_the_distribution(client, server, dataset, team):
    _, (ann1, ann2) = team
    records = {r.id: r for r in dataset.records(query=rg.Query(filter=rg.Filter([("metadata.length", ">=", 11), ("metadata.length", "<=", 12)])))}
    first, second = records["ext-11"], records["ext-12"]

    # Annotator 1 answers through the SDK's upsert (the owner logs responses on their behalf).
    first.responses.add(rg.Response("sentiment", "negative", user_id=ann1.id, status="submitted"))
    dataset.records.log([first])
    assert dataset.progress()["completed"] == 0  # min_submitted is 2

    # Annotator 2 answers with their own API key, as the web app does.
    ann2_key = httpx.post(f"{server['url']}/api/v1/users/{ann2.id}/api-key", headers={"X-Argilla-Api-Key": server["api_key"]}).json()["api_key"]
    res = httpx.post(f"{server['url']}/api/v1/records/{first._server_id}/responses", headers={"X-Argilla-Api-Key": ann2_key},
                     json={"values": {"sentiment": {"value": "negative"}}, "status": "submitted"})
    assert res.status_code == 201, res.text
    progress = dataset.progress()
    assert progress["completed"] == 1 and progress["pending"] == N_RECORDS - 1

    completed = list(dataset.records(query=rg.Query(filter=rg.Filter(("status", "==", "completed")))))
    assert [r.id for r in completed] == ["ext-11"]
    submitted = list(dataset.records(query=rg.Query(filter=rg.Filter(("response.status", "==", "submitted"))), with_responses=True))
    assert [r.id for r in submitted] == ["ext-11"]
    assert sorted(str(r.user_id) for r in submitted[0].responses["sentiment"]) == sorted([str(ann1.id), str(ann2.id)])

    # A draft does not complete a record.
    second.responses.add(rg.Response("sentiment", "positive", user_id=ann1.id, status="draft"))
    dataset.records.log([second])
    assert dataset.progress()["completed"] == 1


def test_update_and_delete_records(dataset):
    record = next(iter(dataset.records(query=rg.Query(filter=rg.Filter(("metadata.length", "==", 499))))))
    record.metadata["source"] = "forum"
    dataset.records.log([record])
    fetched = [r for r in dataset.records(query=rg.Query(filter=rg.Filter(("metadata.length", "==", 499))))]
    assert {r.id: r.metadata["source"] for r in fetched}[record.id] == "forum"

    doomed = list(dataset.records(query=rg.Query(filter=rg.Filter(("metadata.source", "==", "review")))))[:70]
    dataset.records.delete(doomed)
    assert dataset.progress()["total"] == N_RECORDS - 70
    remaining = {r.id for r in dataset.records}
    assert not remaining & {r.id for r in doomed}


def test_annotator_cannot_create_datasets_or_log_records(server, team, dataset):
    _, (ann1, _) = team
    key = httpx.post(f"{server['url']}/api/v1/users/{ann1.id}/api-key", headers={"X-Argilla-Api-Key": server["api_key"]}).json()["api_key"]
    annotator = rg.Argilla(api_url=server["url"], api_key=key)
    with pytest.raises(Exception):
        rg.Dataset(name="nope", workspace=dataset.workspace.name, settings=rg.Settings(fields=[rg.TextField(name="t")], questions=[rg.TextQuestion(name="q")]), client=annotator).create()
    own = annotator.datasets(name=dataset.name, workspace=dataset.workspace.name)
    with pytest.raises(Exception):
        own.records.log([rg.Record(fields={"text": "x"})])
