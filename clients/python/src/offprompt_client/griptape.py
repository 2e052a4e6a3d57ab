"""Griptape drivers over offprompt (extra `griptape`): conversation memory stored and pruned server-side, and a
TaskMemory that keeps tool outputs off-prompt in offprompt.

    from offprompt_client.griptape import (
        OffpromptConversationMemory, OffpromptConversationMemoryDriver, OffpromptTaskMemory)

    driver = OffpromptConversationMemoryDriver(base_url="http://127.0.0.1:3000", thread_id="support-42")
    agent = Agent(conversation_memory=OffpromptConversationMemory(conversation_memory_driver=driver),
                  task_memory=OffpromptTaskMemory(base_url="http://127.0.0.1:3000"), tools=[...])

- `OffpromptConversationMemoryDriver`: a `BaseConversationMemoryDriver` for any Griptape memory. `store`
  posts only the runs offprompt has not got; when Griptape dropped runs (max_runs) it PATCHes the list to
  `/api/threads/{id}`, which offprompt turns into deletions; the memory's meta goes to the thread's metadata.
- `OffpromptConversationMemory`: a `ConversationMemory` that does not load the thread. Each prompt asks
  offprompt's prompt-stack route for the history that fits the prompt driver's input budget (one request
  per prompt); each run is one POST.
- `OffpromptTaskMemory`: Griptape's `TaskMemory` (name `TaskMemory` by default) storing through
  `POST /memories/{name}/outputs` (with the subtask's thought and actions: offprompt keeps the meta memory)
  and loading through the artifacts route. Outputs past Lambda's 6 MB request payload go through the uploads
  route (presigned PUT, then `value_from`) and large loads through the 303's presigned GET, by themselves.
  Griptape's QueryTool, ExtractionTool and PromptSummaryTool read it (they only call `load_artifacts`).

Connection settings: `base_url` (default `OFFPROMPT_API_URL`, else the local stack `http://127.0.0.1:3000`),
`api_key` (default `OFFPROMPT_API_KEY`; sent as `Authorization: Bearer`), `tenant` (the local stack's
`X-Offprompt-Tenant` header).
"""

from __future__ import annotations

import os
import uuid
from typing import TYPE_CHECKING, Any

from attrs import Factory, define, field
from griptape.artifacts import BaseArtifact, InfoArtifact, ListArtifact
from griptape.common import PromptStack
from griptape.drivers.memory.conversation import BaseConversationMemoryDriver
from griptape.memory import TaskMemory
from griptape.memory.meta import ActionSubtaskMetaEntry
from griptape.memory.structure import ConversationMemory, Run

from offprompt_client.client import OffpromptClient, OffpromptClientError

if TYPE_CHECKING:
    from collections.abc import Callable

    from griptape.drivers.prompt import BasePromptDriver
    from griptape.tasks import ActionsSubtask

__all__ = ["OffpromptConversationMemory", "OffpromptConversationMemoryDriver", "OffpromptTaskMemory"]

EMPTY_OUTPUT = "tool output is empty"


@define(kw_only=True)
class OffpromptConversationMemoryDriver(BaseConversationMemoryDriver):
    """Runs and meta of one offprompt thread (`thread_id`, default `OFFPROMPT_THREAD_ID` or a new uuid)."""

    base_url: str | None = field(default=None)
    thread_id: str = field(
        default=Factory(lambda: os.environ.get("OFFPROMPT_THREAD_ID") or uuid.uuid4().hex),
        metadata={"serializable": True},
    )
    api_key: str | None = field(default=None)
    tenant: str | None = field(default=None)
    timeout: float = field(default=60.0)
    # What offprompt holds, as far as this driver knows (None: not known yet; the first store PATCHes).
    _stored_ids: list[str] | None = field(default=None, init=False)
    _stored_meta: dict[str, Any] | None = field(default=None, init=False)
    _client: OffpromptClient | None = field(default=None, init=False)
    _thread_exists: bool = field(default=False, init=False)

    @property
    def client(self) -> OffpromptClient:
        if self._client is None:
            self._client = OffpromptClient.connect(self.base_url, self.api_key, self.tenant, self.timeout)
        return self._client

    # ---- BaseConversationMemoryDriver ----------------------------------------------------------------
    def store(self, runs: list[Run], metadata: dict[str, Any]) -> None:
        ids = [run.id for run in runs]
        known = self._stored_ids
        if known is not None and set(known) <= set(ids) and ids[: len(known)] == known:
            for run in runs[len(known) :]:  # only appends: one POST per new run
                self.add_run(run)
            if metadata != self._stored_meta:
                self.store_meta(metadata)
        else:  # first store, or runs were dropped: offprompt diffs the list (appends + deletions by run id)
            self._ensure_thread()
            messages = [
                {
                    "input": run.input.to_json(),
                    "output": run.output.to_json(),
                    "metadata": {**(run.meta or {}), "run_id": run.id},
                }
                for run in runs
            ]
            self._patch({"messages": messages, "metadata": dict(metadata)})
            self._stored_meta = dict(metadata)
        self._stored_ids = ids

    def load(self) -> tuple[list[Run], dict[str, Any]]:
        runs = [Run.from_dict(item["run"]) for item in self.client.iter_runs(self.thread_id, page_size=100)]
        meta = self.load_meta()
        self._stored_ids = [run.id for run in runs]
        self._stored_meta = dict(meta)
        return runs, meta

    # ---- one run at a time (what OffpromptConversationMemory uses) ---------------------------------------
    def add_run(self, run: Run) -> None:
        self.client.add_run(self.thread_id, run.to_dict())
        self._thread_exists = True
        if self._stored_ids is not None:
            self._stored_ids.append(run.id)

    def load_meta(self) -> dict[str, Any]:
        try:
            thread = self.client.request("GET", f"/api/threads/{_segment(self.thread_id)}").json()
        except OffpromptClientError as error:
            if error.status == 404:
                return {}
            raise
        self._thread_exists = True
        return dict(thread.get("metadata") or {})

    def store_meta(self, metadata: dict[str, Any]) -> None:
        self._ensure_thread()
        self._patch({"metadata": dict(metadata)})
        self._stored_meta = dict(metadata)

    def configure(self, **settings: Any) -> Any:
        """PUT the thread's settings (max_runs, memory_type, offset, retention_days)."""
        answer = self.client.configure_thread(self.thread_id, settings)
        self._thread_exists = True
        return answer

    def prompt_stack(self, **options: Any) -> PromptStack:
        """The thread's history as a Griptape PromptStack (options: max_tokens, last_n, system, input, ...)."""
        data = self.client.prompt_stack(self.thread_id, raw=True, **options)
        return PromptStack.from_dict(data)

    def _ensure_thread(self) -> None:
        if not self._thread_exists:
            self.client.configure_thread(self.thread_id, {})  # creates the thread, changes nothing
            self._thread_exists = True

    def _patch(self, body: dict[str, Any]) -> None:
        self.client.request("PATCH", f"/api/threads/{_segment(self.thread_id)}", json_body=body)


@define(kw_only=True)
class OffpromptConversationMemory(ConversationMemory):
    """A ConversationMemory whose history stays in offprompt: nothing is loaded up front; each prompt gets
    the newest runs that fit the prompt driver's input budget from offprompt's prompt-stack route."""

    conversation_memory_driver: OffpromptConversationMemoryDriver = field(factory=OffpromptConversationMemoryDriver)
    autoload: bool = field(default=False)
    _configured: bool = field(default=False, init=False)

    def add_run(self, run: Run) -> OffpromptConversationMemory:
        self.before_add_run()
        self._configure()
        self.conversation_memory_driver.add_run(run)
        if self.meta and self.meta != self.conversation_memory_driver._stored_meta:
            self.conversation_memory_driver.store_meta(self.meta)
        return self

    def try_add_run(self, run: Run) -> None:
        self.conversation_memory_driver.add_run(run)

    def load_runs(self) -> list[Run]:
        """Explicit full load (Griptape's behaviour); prompts never need it."""
        return super().load_runs()

    def to_prompt_stack(self, last_n: int | None = None) -> PromptStack:
        if last_n is None:
            last_n = self.max_runs
        elif self.max_runs is not None:
            last_n = min(last_n, self.max_runs)
        options = {"last_n": last_n} if last_n else {}
        return self.conversation_memory_driver.prompt_stack(**options)

    def add_to_prompt_stack(
        self, prompt_driver: BasePromptDriver, prompt_stack: PromptStack, index: int | None = None
    ) -> PromptStack:
        options: dict[str, Any] = {}
        if self.max_runs is not None:
            options["last_n"] = self.max_runs
        if self.autoprune:
            options.update(tokenizer_hint(prompt_driver))
            # Griptape keeps the most runs n with max_input_tokens - count(render(stack + memory(n))) > 0.
            # render(stack + memory) = render(stack) + render(memory) - "Assistant:" (both end with it), so
            # offprompt applies the same test to the memory alone with this budget.
            tokenizer = prompt_driver.tokenizer
            used = tokenizer.count_tokens(prompt_driver.prompt_stack_to_string(prompt_stack))
            budget = tokenizer.max_input_tokens - used + tokenizer.count_tokens("Assistant:")
            if budget <= 0:
                return prompt_stack
            options["max_tokens"] = budget
        memory = self.conversation_memory_driver.prompt_stack(**options).messages
        if index is None:
            prompt_stack.messages.extend(memory)
        else:
            prompt_stack.messages[index:index] = memory
        return prompt_stack

    def _configure(self) -> None:
        if not self._configured:
            if self.max_runs is not None:
                self.conversation_memory_driver.configure(max_runs=self.max_runs)
            self._configured = True


@define(kw_only=True)
class OffpromptTaskMemory(TaskMemory):
    """Griptape's TaskMemory with offprompt as the storage: outputs go to process-output, loads to the
    artifacts route. The answers are Griptape's (the tool.j2 reference, "tool output is empty", the output
    itself for kinds memory does not store, an ErrorArtifact when a namespace changes kind)."""

    name: str = field(default="TaskMemory", metadata={"serializable": True})
    base_url: str | None = field(default=None)
    api_key: str | None = field(default=None)
    tenant: str | None = field(default=None)
    timeout: float = field(default=120.0)
    _client: OffpromptClient | None = field(default=None, init=False)

    @property
    def client(self) -> OffpromptClient:
        if self._client is None:
            self._client = OffpromptClient.connect(self.base_url, self.api_key, self.tenant, self.timeout)
        return self._client

    def process_output(
        self, tool_activity: Callable, subtask: ActionsSubtask, output_artifact: BaseArtifact
    ) -> BaseArtifact:
        activity: Any = tool_activity  # a bound @activity method: its tool and its name
        tool_name = activity.__self__.name
        activity_name = activity.name
        namespace = output_artifact.name
        answer = self.client.process_output(
            self.name,
            tool_name,
            activity_name,
            output_artifact.to_dict(),
            actions=subtask.actions_to_dicts(),
            thought=subtask.thought,
            raw=True,
        )
        result = BaseArtifact.from_dict(answer)
        if isinstance(result, InfoArtifact) and result.value != EMPTY_OUTPUT and result.name == namespace:
            # stored: keep Griptape's local bookkeeping too (the system prompt renders the meta memory)
            self.namespace_metadata[namespace] = subtask.actions_to_json()
            if subtask.structure and subtask.structure.meta_memory:
                subtask.structure.meta_memory.add_entry(
                    ActionSubtaskMetaEntry(
                        thought=subtask.thought, actions=subtask.actions_to_json(), answer=result.value
                    )
                )
        return result

    def load_artifacts(self, namespace: str) -> ListArtifact:
        try:
            data = self.client.load_artifacts(self.name, namespace, raw=True)
        except OffpromptClientError as error:
            if error.status == 404:
                return ListArtifact()
            raise
        loaded = BaseArtifact.from_dict(data)
        return loaded if isinstance(loaded, ListArtifact) else ListArtifact([loaded])


def tokenizer_hint(prompt_driver: BasePromptDriver) -> dict[str, str]:
    """How offprompt should count for this prompt driver: Griptape's tokenizer, by kind (ADR 0013)."""
    tokenizer = prompt_driver.tokenizer
    per_token = getattr(tokenizer, "characters_per_token", None)
    if isinstance(per_token, int):  # SimpleTokenizer, AmazonBedrockTokenizer
        return {"tokenizer": f"chars_per_token:{per_token}"}
    if type(tokenizer).__name__ == "OpenAiTokenizer" and tokenizer.model:
        return {"model": tokenizer.model}
    return {}  # offprompt's default, cl100k_base


def _segment(value: str) -> str:
    import urllib.parse

    return urllib.parse.quote(value, safe="")
