"""Multi round-trip requests (MRTR): a handler's questions to the client as rounds.

On the modern wire a server never sends requests to the client. A ``tools/call``,
``prompts/get`` or ``resources/read`` handler that needs an elicitation, a sampling or the
client's roots answers ``InputRequiredResult`` (``resultType: "input_required"``) with
``inputRequests`` and a sealed ``requestState``; the client retries the same request with
``inputResponses`` (the answers to that round's requests only) and the state echoed.

:class:`Round` is one attempt. ``await round.ask(kind, params)`` returns the answer when
this attempt (or, through ``requestState``, an earlier one) has it, validated for its kind;
otherwise it records the question and suspends. :meth:`Round.run` drives the handler: once
every concurrent branch of the handler is suspended on a question (or busy elsewhere) it
cancels the handler and raises :class:`InputRequired` carrying the ``InputRequiredResult``
with all the round's questions (so ``asyncio.gather`` over several asks gives one round).

**The rule a handler follows.** Every round runs the handler from the top again: code
before a question runs once per round. So

- keep work before a question cheap and free of side effects, or do it after the last
  question, or remember its outcome in :attr:`Round.data` (sealed into ``requestState``);
- answers are replayed: an answered ``ask`` returns its answer at once on later rounds,
  without asking again, so the common case (ask, then act) is safe as written;
- ask the same questions in the same order on every round: a question's key comes from its
  position among the handler's asks, its kind and a digest of its params (or pass
  ``key=``), so a question whose params change (e.g. a timestamp in the message) is a new
  question.

Answers to keys this round does not ask are ignored; a question left unanswered is asked
again; a kind the client did not declare the capability for raises -32021 (check
:meth:`Round.can_ask` first to choose another path). At most ``max_rounds`` rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

import orjson

from mcpkit._lazy import lazy_module
from mcpkit.envelope import missing_capability_error, missing_client_capabilities
from mcpkit.errors import McpError

if TYPE_CHECKING:
    import hashlib

    from mcpkit.server import request_state as _request_state
    from mcpkit.server.request_state import RequestBinding, RequestState, RequestStateSealer
else:  # sealing loads with the first round (a server with no MRTR use never needs it)
    _request_state = lazy_module("mcpkit.server.request_state", globals(), "_request_state")
    hashlib = lazy_module("hashlib", globals(), "hashlib")  # for the first question's key

__all__ = [
    "DEFAULT_MAX_QUESTIONS",
    "DEFAULT_MAX_ROUNDS",
    "INPUT_METHODS",
    "MRTR_METHODS",
    "InputKind",
    "InputRequired",
    "Round",
    "current_round",
    "input_required_result",
    "required_capability",
    "run_with_rounds",
    "validate_answer",
]

InputKind = Literal["elicitation", "sampling", "roots"]
#: The request method of each kind of input request.
INPUT_METHODS: Final[Mapping[str, str]] = {
    "elicitation": "elicitation/create",
    "sampling": "sampling/createMessage",
    "roots": "roots/list",
}
#: The client requests that may answer ``input_required``.
MRTR_METHODS: Final = frozenset({"tools/call", "prompts/get", "resources/read"})
DEFAULT_MAX_ROUNDS: Final = 10
DEFAULT_MAX_QUESTIONS: Final = 32
_SETTLE_STEPS: Final = 5  # loop turns without a new question before a round ends
_CURRENT: ContextVar[Round | None] = ContextVar("mcpkit_mrtr_round", default=None)
T = TypeVar("T")


def current_round() -> Round | None:
    """The :class:`Round` driving the running handler, or None (legacy request, or not
    inside :meth:`Round.run`)."""
    return _CURRENT.get()


def input_required_result(
    input_requests: Mapping[str, Mapping[str, Any]] | None = None,
    request_state: str | None = None,
) -> dict[str, Any]:
    """The ``InputRequiredResult`` dict; at least one of the two members is required."""
    if not input_requests and request_state is None:
        raise ValueError("an InputRequiredResult needs inputRequests or requestState")
    result: dict[str, Any] = {"resultType": "input_required"}
    if input_requests:
        result["inputRequests"] = {k: dict(v) for k, v in input_requests.items()}
    if request_state is not None:
        result["requestState"] = request_state
    return result


class InputRequired(Exception):
    """The handler needs client input: answer with :attr:`result` (an
    ``InputRequiredResult``) instead of a complete result."""

    def __init__(
        self,
        input_requests: Mapping[str, Mapping[str, Any]] | None = None,
        request_state: str | None = None,
    ) -> None:
        self.result = input_required_result(input_requests, request_state)
        super().__init__(f"input required: {', '.join(input_requests or {}) or 'state only'}")

    @property
    def input_requests(self) -> dict[str, Any]:
        """The ``inputRequests`` map (empty when only state is returned)."""
        requests: dict[str, Any] = self.result.get("inputRequests", {})
        return requests


def required_capability(kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The client capabilities an input request of ``kind`` with ``params`` needs."""
    if kind == "elicitation":
        return {"elicitation": {str(params.get("mode", "form")): {}}}
    if kind == "sampling":
        need: dict[str, Any] = {}
        if params.get("tools") or params.get("toolChoice"):
            need["tools"] = {}
        if params.get("includeContext") in ("thisServer", "allServers"):
            need["context"] = {}
        return {"sampling": need}
    if kind == "roots":
        return {"roots": {}}
    raise ValueError(f"unknown input kind {kind!r}")


def _missing(caps: Mapping[str, Any], kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
    need = required_capability(kind, params)
    if kind == "elicitation":
        declared = caps.get("elicitation")
        # An empty elicitation capability declares form mode (as in 2025-11-25).
        if isinstance(declared, Mapping) and not declared and "form" in need["elicitation"]:
            return {}
    return missing_client_capabilities(caps, need)


def _check_params(kind: str, params: Mapping[str, Any]) -> None:
    if kind == "elicitation":
        if not isinstance(params.get("message"), str):
            raise ValueError("an elicitation needs a string 'message'")
        mode = params.get("mode", "form")
        if mode == "form" and not isinstance(params.get("requestedSchema"), Mapping):
            raise ValueError("a form elicitation needs a 'requestedSchema' object")
        if mode == "url" and not isinstance(params.get("url"), str):
            raise ValueError("a URL elicitation needs a string 'url'")
        if mode not in ("form", "url"):
            raise ValueError(f"unknown elicitation mode {mode!r}")
    elif kind == "sampling":
        if not isinstance(params.get("messages"), list):
            raise ValueError("a sampling request needs a 'messages' list")
        tokens = params.get("maxTokens")
        if isinstance(tokens, bool) or not isinstance(tokens, int):
            raise ValueError("a sampling request needs an integer 'maxTokens'")
    elif kind != "roots":
        raise ValueError(f"unknown input kind {kind!r}")


def _content_block(block: Any) -> bool:
    return isinstance(block, Mapping) and isinstance(block.get("type"), str)


def _answer_problem(kind: str, answer: Any) -> str | None:
    if not isinstance(answer, Mapping):
        return "must be an object"
    if kind == "elicitation":
        if answer.get("action") not in ("accept", "decline", "cancel"):
            return "action must be 'accept', 'decline' or 'cancel'"
        content = answer.get("content")
        if content is not None:
            if not isinstance(content, Mapping):
                return "content must be an object"
            for name, value in content.items():
                ok = isinstance(value, str | int | float | bool) or (
                    isinstance(value, list) and all(isinstance(v, str) for v in value)
                )
                if not ok:
                    return f"content[{name!r}] must be a string, number, boolean or strings"
    elif kind == "sampling":
        if answer.get("role") not in ("user", "assistant"):
            return "role must be 'user' or 'assistant'"
        if not isinstance(answer.get("model"), str):
            return "model must be a string"
        content = answer.get("content")
        blocks = content if isinstance(content, list) else [content]
        if not all(_content_block(b) for b in blocks):
            return "content must be a content block or a list of them"
    elif kind == "roots":
        roots = answer.get("roots")
        if not isinstance(roots, list):
            return "roots must be a list"
        for root in roots:
            if not (isinstance(root, Mapping) and isinstance(root.get("uri"), str)):
                return "every root needs a string uri"
            if "name" in root and not isinstance(root["name"], str):
                return "a root's name must be a string"
    return None


def validate_answer(kind: str, key: str, answer: Any) -> dict[str, Any]:
    """The client's answer to input request ``key`` as a dict, or -32602 when it is not a
    valid ElicitResult / CreateMessageResult / ListRootsResult for ``kind``."""
    problem = _answer_problem(kind, answer)
    if problem is not None:
        raise McpError(-32602, f"Invalid input response {key!r} ({INPUT_METHODS[kind]}): {problem}")
    return dict(answer)


def _digest(params: Mapping[str, Any]) -> str:
    return hashlib.sha256(orjson.dumps(params, option=orjson.OPT_SORT_KEYS)).hexdigest()[:12]


class Round:
    """One attempt of a multi round-trip request (see the module docstring)."""

    def __init__(
        self,
        *,
        client_capabilities: Mapping[str, Any],
        binding: RequestBinding | Callable[[], RequestBinding],
        sealer: RequestStateSealer,
        responses: Mapping[str, Any] | None = None,
        state: RequestState | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        max_questions: int = DEFAULT_MAX_QUESTIONS,
    ) -> None:
        self.client_capabilities = client_capabilities
        self._binding = binding
        self.sealer = sealer
        self.max_rounds = max_rounds
        self.max_questions = max_questions
        self._responses = dict(responses or {})
        self._answers: dict[str, Any] = dict(state.answers) if state else {}
        #: The handler's own JSON data, kept across rounds in ``requestState``.
        self.data: dict[str, Any] = dict(state.data) if state else {}
        #: Rounds already answered ``input_required`` before this one.
        self.previous_rounds = state.round if state else 0
        self._questions: dict[str, dict[str, Any]] = {}
        self._asks = 0
        #: Set by an ask that waits; cleared by :meth:`run` while the handler settles.
        self._asked = False
        #: What :meth:`run` waits on: resolved by the handler's end or a new question.
        self._wake: asyncio.Future[None] | None = None
        self._never: asyncio.Future[None] | None = None
        self._running = False

    @classmethod
    def from_request(
        cls,
        method: str,
        params: Mapping[str, Any],
        *,
        client_capabilities: Mapping[str, Any],
        sealer: RequestStateSealer,
        principal: str | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
    ) -> Round:
        """The round of a ``tools/call``/``prompts/get``/``resources/read`` request:
        ``inputResponses`` read (-32602 when not an object) and ``requestState`` opened
        (-32602 when invalid, expired or issued for another principal or request)."""
        if method not in MRTR_METHODS:
            raise ValueError(f"{method} cannot answer input_required")
        responses = params.get("inputResponses", {})
        if not isinstance(responses, Mapping):
            raise McpError(-32602, "inputResponses must be an object")
        token = params.get("requestState")
        binding: RequestBinding | Callable[[], RequestBinding]
        if token is not None:
            binding = _request_state.RequestBinding.of(method, params, principal)
            state = sealer.open(token, binding)
        else:
            # Only a round that asks seals a state: digest the arguments then, if ever.
            binding = functools.partial(_request_state.RequestBinding.of, method, params, principal)
            state = None
        return cls(
            client_capabilities=client_capabilities,
            binding=binding,
            sealer=sealer,
            responses=responses,
            state=state,
            max_rounds=max_rounds,
        )

    @property
    def binding(self) -> RequestBinding:
        """What this request's sealed state is bound to (principal, method, name, arguments)."""
        binding = self._binding
        if not isinstance(binding, _request_state.RequestBinding):
            binding = self._binding = binding()
        return binding

    @property
    def questions(self) -> dict[str, dict[str, Any]]:
        """The input requests recorded so far in this attempt, by key."""
        return dict(self._questions)

    def can_ask(self, kind: InputKind, params: Mapping[str, Any] | None = None) -> bool:
        """Whether the client declared what an input request of ``kind`` needs."""
        return not _missing(self.client_capabilities, kind, params or {})

    def key_for(self, kind: InputKind, params: Mapping[str, Any]) -> str:
        """The key the next :meth:`ask` of ``kind`` with ``params`` gets (no ``key=``)."""
        return f"{kind}-{self._asks}-{_digest(params)}"

    async def ask(
        self, kind: InputKind, params: Mapping[str, Any] | None = None, *, key: str | None = None
    ) -> dict[str, Any]:
        """The client's answer to an input request: an ElicitResult, CreateMessageResult or
        ListRootsResult dict. Suspends (until :meth:`run` ends the round) when there is no
        answer yet; -32021 when the client lacks the capability; -32602 for an invalid
        answer; ValueError for malformed ``params`` or a key reused with other params. An
        answer already given is returned even if the capability is no longer declared."""
        params = dict(params or {})
        _check_params(kind, params)
        if key is None:
            key = self.key_for(kind, params)
        self._asks += 1
        if key in self._answers:
            answer: dict[str, Any] = self._answers[key]
            return answer
        if key in self._responses:
            answer = validate_answer(kind, key, self._responses[key])
            self._answers[key] = answer
            return answer
        if missing := _missing(self.client_capabilities, kind, params):
            raise missing_capability_error(missing)
        request = {"method": INPUT_METHODS[kind], "params": params}
        known = self._questions.get(key)
        if known is not None and known != request:
            raise ValueError(f"input request key {key!r} used for two different requests")
        if not self._running:
            raise RuntimeError("a question without an answer can only wait inside Round.run")
        self._questions[key] = request
        self._asked = True
        self._wake_up()
        if self._never is None:
            self._never = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._never)
        raise AssertionError("unreachable: a round's suspension is never resolved")

    def _input_required(self) -> InputRequired:
        if self.previous_rounds + 1 > self.max_rounds:
            raise McpError(-32603, f"Too many rounds of input requests (limit {self.max_rounds})")
        if len(self._questions) > self.max_questions:
            raise McpError(
                -32603, f"Too many input requests in one round (limit {self.max_questions})"
            )
        try:
            state = self.sealer.seal(
                self.binding,
                questions=list(self._questions),
                answers=self._answers,
                data=self.data,
                round=self.previous_rounds + 1,
            )
        except ValueError as exc:
            raise McpError(-32603, f"Cannot keep the request's state: {exc}") from None
        return InputRequired(self._questions, state)

    def _wake_up(self, _task: object = None) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def run(self, fn: Callable[[], Awaitable[T]]) -> T:
        """Run the handler ``fn`` for this attempt: its result when it completes, or
        :class:`InputRequired` (with the sealed state) once it waits on questions. Errors
        of the handler propagate. Inside, :func:`current_round` returns this round."""

        async def call() -> T:
            return await fn()

        if self._running:
            raise RuntimeError("a round runs one handler")
        self._running = True
        loop = asyncio.get_running_loop()
        reset = _CURRENT.set(self)
        try:
            task = loop.create_task(call())
        finally:
            _CURRENT.reset(reset)
        # One future per wait, resolved by the handler's end (a done callback) or by a new
        # question (ask): no waiter task, no asyncio.wait, as few loop turns as possible.
        task.add_done_callback(self._wake_up)
        try:
            while not task.done():
                self._wake = loop.create_future()
                if self._asked:
                    self._wake.set_result(None)
                await self._wake
                quiet = 0
                while quiet < _SETTLE_STEPS and not task.done():
                    # Let concurrent branches of the handler reach their own questions.
                    self._asked = False
                    await asyncio.sleep(0)
                    quiet = 0 if self._asked else quiet + 1
                self._asked = False
                if not task.done() and self._questions:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    raise self._input_required()
            return task.result()
        finally:
            self._wake = None
            task.remove_done_callback(self._wake_up)
            if not task.done():
                task.cancel()
            if self._never is not None:
                # Ends asks left waiting in branches the handler abandoned (e.g. gather
                # siblings of an ask that raised).
                self._never.cancel()


async def run_with_rounds(
    method: str,
    params: Mapping[str, Any],
    handler: Callable[[], Awaitable[T]],
    *,
    client_capabilities: Mapping[str, Any],
    sealer: RequestStateSealer,
    principal: str | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> T | dict[str, Any]:
    """Serve one attempt of ``method``: the handler's result, or the
    ``InputRequiredResult`` dict when it waits on questions. For a method that cannot
    answer ``input_required`` the handler just runs (no round: :func:`current_round` is
    None). McpErrors (-32602 bad state or answers, -32021) propagate."""
    if method not in MRTR_METHODS:
        return await handler()
    rnd = Round.from_request(
        method,
        params,
        client_capabilities=client_capabilities,
        sealer=sealer,
        principal=principal,
        max_rounds=max_rounds,
    )
    try:
        return await rnd.run(handler)
    except InputRequired as needed:
        return needed.result
