"""`models check` against each kind of server the local server stands in for (OpenAI, vLLM,
llama.cpp's Python server, Ollama, a server that takes no schema), a window too small on the
server's side, the schema counted into a prompt that carries it, and call logs written before
the `raw` column, read beside newer ones."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from memshift import schemas
from memshift.analysis.costs import call_costs
from memshift.analysis.frame import open_study
from memshift.artifacts import write_table
from memshift.models import prompts
from memshift.models.calllog import CallLog
from memshift.models.check import check_requests, report, run_check, try_other_forms
from memshift.models.client import ModelClient, overflow, prompt_estimate
from memshift.models.openai_backend import completion
from memshift.models.profiles import Profile, _check
from memshift.models.replies import Reply
from memshift.models.reply_schemas import SCHEMAS, schema_name
from memshift.models.requests import CallContext
from memshift_tools.localserver import LocalServer, _arguments, canned_answer

ROLES = ["writer", "reader", "program", "auditor"]


def profile(url: str, **settings: object) -> Profile:
    raw = {"backend": "openai", "model": "m", "base_url": url, "decoding": {"max_tokens": 512}}
    return _check("p", {**raw, **settings})


def checked(mode: str, **settings: object) -> tuple[Profile, list[Reply], str]:
    with LocalServer(canned_answer, mode=mode) as server:
        chosen = profile(f"{server.url}/v1", **settings)
        replies = run_check(chosen)
        said = report(chosen, replies, try_other_forms(chosen, replies))
    return chosen, replies, said


@pytest.mark.parametrize(
    ("mode", "structured"),
    [
        ("openai", "json_schema"),
        ("vllm", "json_schema"),
        ("vllm", "json_object"),
        ("vllm", "tool"),
        ("ollama", "json_schema"),  # Ollama's OpenAI-compatible /v1
        ("llamacpp", "json_object"),
        ("llamacpp", "tool"),
    ],
)
def test_every_role_passes_in_each_form_the_server_honours(mode, structured):
    _, replies, said = checked(mode, structured=structured)
    assert [r.role for r in replies] == ROLES
    assert all(r.ok for r in replies), [(r.role, r.failure, r.detail) for r in replies]
    assert "4 of 4 roles work" in said and "set in profile" not in said


def test_llamacpp_500_is_named_per_role_with_the_form_that_works():
    _, replies, said = checked("llamacpp")
    assert all(r.attempts == 1 and r.failure == "transport_error" for r in replies)
    for role in ROLES:
        assert (
            f"  {role:<8} json_schema FAILED (HTTP 500, the server refused the parameter "
            "'response_format'); json_object ok; 2 attempt(s)"
        ) in said
    assert "set in profile p: structured: json_object" in said
    assert "0 of 4 roles work" in said


def test_a_role_of_its_own_form_is_named_in_the_settings_line():
    # the reader's own form already works; the other roles discover json_object
    _, replies, said = checked("llamacpp", roles={"reader": {"structured": "json_object"}})
    assert [r.ok for r in replies] == [False, True, False, False]
    assert "set in profile p: roles.writer.structured: json_object" in said
    assert "roles.reader.structured" not in said


def test_a_failed_reply_is_shown_by_its_first_200_characters():
    def rambling(api, messages, schema):
        return "no JSON here, " + "a" * 500

    with LocalServer(rambling, mode="vllm") as server:
        chosen = profile(f"{server.url}/v1", structured="json_object")
        replies = run_check(chosen)
        said = report(chosen, replies, try_other_forms(chosen, replies))
    assert "it said: 'no JSON here, " + "a" * 186 + "'" in said
    assert "a" * 201 not in said


def test_the_check_measures_the_servers_tokens_per_counted_token():
    *_, said = checked("vllm")
    assert "of its tokens per token of memshift's count (the profile's token_ratio: 1)" in said


@pytest.mark.parametrize("mode", ["vllm", "llamacpp"])
def test_a_server_saying_the_window_is_exceeded_is_a_context_overflow_not_retried(mode):
    with LocalServer(canned_answer, mode=mode, context_length=600) as server:
        chosen = profile(f"{server.url}/v1", structured="json_object")
        replies = ModelClient(chosen).generate(check_requests())
        asked = server.stats()["requests"]
    by_role = {r.role: r for r in replies}
    assert by_role["writer"].failure == "context_overflow", by_role["writer"].detail
    assert by_role["writer"].attempts == 1
    assert "maximum context length is 600 tokens" in by_role["writer"].detail
    assert asked == len(replies)  # nothing was asked twice


def test_the_schema_counts_toward_the_prompt_in_the_forms_that_put_it_there():
    request = check_requests()[0]
    messages, schema = prompts.build(request), SCHEMAS[schema_name(request)]
    url = "http://127.0.0.1:9/v1"
    sizes = {
        mode: prompt_estimate(profile(url, structured=mode), "writer", messages, schema)
        for mode in ("json_schema", "json_object", "tool", "text")
    }
    assert sizes["json_schema"] == sizes["json_object"] < sizes["tool"] == sizes["text"]
    # a window that fits the prompt alone, but not with the schema in it
    window = sizes["json_schema"] + 512 + 1
    assert overflow(profile(url, context_length=window), "writer", messages, schema) is None
    too_long = overflow(
        profile(url, context_length=window, structured="tool"), "writer", messages, schema
    )
    assert too_long is not None and f"context_length {window:,}" in too_long


def test_anthropic_takes_the_schema_in_the_text_too():
    with LocalServer(canned_answer, mode="text") as server:
        chosen = _check(
            "c",
            {
                "backend": "anthropic",
                "model": "claude",
                "base_url": server.url,
                "decoding": {"max_tokens": 512},
                "structured": "text",
            },
        )
        replies = run_check(chosen)
    assert all(r.ok for r in replies), [(r.role, r.failure, r.detail) for r in replies]


def test_the_local_servers_command_line_takes_a_mode_and_a_window():
    args = _arguments(["--mode", "llamacpp", "--context-length", "2048"])
    assert (args.mode, args.context_length) == ("llamacpp", 2048)
    assert _arguments([]).mode == "openai"
    with pytest.raises(SystemExit):
        _arguments(["--mode", "nonsense"])


def test_call_logs_without_the_raw_column_load_beside_newer_ones(tmp_path: Path):
    context = CallContext(run="r", world=0, branch="src", system="bm25", checkpoint=1)
    failed = Reply("reader", None, "invalid_json", "not JSON", raw="{not json")
    log = CallLog()
    messages = [{"role": "user", "content": "a b c"}]
    log.add(context, failed, backend="openai", model="m", messages=messages)
    new = tmp_path / "calls-new.parquet"
    log.write(new)
    # a log from before `raw` and the prefix-cache columns
    added = ("raw", "prompt_tokens", "prefix_hit_tokens")
    older = pa.schema([f for f in schemas.CALLS if f.name not in added])
    old = tmp_path / "calls-old.parquet"
    old_table = log.to_table().drop_columns(list(added)).cast(older)
    pq.write_table(old_table, old)
    scores = tmp_path / "scores.parquet"
    write_table(schemas.SCORES.empty_table(), schemas.SCORES, scores)
    con = open_study(scores, [old, new])
    rows = con.execute(
        "SELECT failure, raw, prompt_tokens FROM calls ORDER BY raw NULLS FIRST"
    ).fetchall()
    assert rows == [("invalid_json", None, None), ("invalid_json", "{not json", 3)]
    assert call_costs(con).select(["prompt_tokens", "prefix_hit_tokens"]).to_pylist() == [
        {"prompt_tokens": 3, "prefix_hit_tokens": 0}
    ]
    only_old = open_study(scores, [old])
    assert only_old.execute("SELECT count(*) FROM calls").fetchone() == (1,)
    assert call_costs(only_old)["prompt_tokens"].to_pylist() == [0]


def test_a_tool_call_beside_empty_content_is_read_from_the_call():
    call = {"function": {"name": "reply", "arguments": '{"a": "b"}'}}
    message = {"content": "", "tool_calls": [call]}
    reply = {"choices": [{"message": message, "finish_reason": "tool_calls"}]}
    assert completion(reply).content == '{"a": "b"}'
    text_only = {"choices": [{"message": {"content": '{"a": 1}', "tool_calls": []}}]}
    assert completion(text_only).content == '{"a": 1}'
