"""A Jinja sandbox that also bounds work, sizes and numbers.

Jinja's sandbox stops templates from reaching Python internals, but not from asking for
a 10**10-iteration loop, ``9**999999999`` or a gigabyte string: a manifest from a pull
request could hang or exhaust the machine that validates it. Manifest templates only
substitute values, so this environment keeps every value a template makes small
(``TemplateLimits``) and charges every step (loop iteration, call, filter, operator) to a
budget shared by one project load. Sizes are checked *before* an operation that can grow
its result by more than a constant factor, and after every other one.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import wraps
from typing import Any

from jinja2 import nodes
from jinja2.filters import FILTERS
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Cycler, Joiner, Namespace


class TemplateLimitError(Exception):
    """A template went past one of the limits; the renderer adds file:line."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True, slots=True)
class TemplateLimits:
    """Bounds on what manifest templates may build; far above what a substitution needs."""

    max_value_chars: int = 100_000
    """Size of any string or list a template makes, and of each rendered value (characters)."""
    max_template_chars: int = 10_000
    """Length of one templated string value (its source), so compiling stays cheap."""
    max_int_bits: int = 256
    """Integers beyond 2**256 are refused (``9**999999999`` would never finish)."""
    max_range: int = 10_000
    """Length of ``range()``."""
    max_steps: int = 500_000
    """Loop iterations, calls, filters and operators over one project load."""
    max_seconds: float = 1.0
    """Time spent rendering over one project load (a backstop to ``max_steps``)."""


_BUDGET_HINT = "manifest templates should only substitute values (var(), env_var(), target): remove the loop"
_SIZE_HINT = "manifest templates should only substitute values: build smaller strings and lists"
_NUMBER_HINT = "use plain numbers; templates are not for big arithmetic"


class WorkBudget:
    """Steps and rendering time left for one project load (shared by its renderers)."""

    def __init__(self, limits: TemplateLimits) -> None:
        self.limits = limits
        self.steps = 0
        self.seconds = 0.0
        self._started: float | None = None

    def start(self) -> None:
        """Called before each value is rendered (compiling a template takes time without steps)."""
        self._check_time()
        self._started = time.perf_counter()

    def stop(self) -> None:
        if self._started is not None:
            self.seconds += time.perf_counter() - self._started
            self._started = None

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.limits.max_steps:
            raise TemplateLimitError(
                f"templates took more than {self.limits.max_steps} steps (loop iterations, calls, "
                "operators) in this project",
                _BUDGET_HINT,
            )
        if self.steps % 256 == 0:
            self._check_time()

    def _check_time(self) -> None:
        if self._elapsed() > self.limits.max_seconds:
            raise TemplateLimitError(
                f"templates took more than {self.limits.max_seconds:g} s to render in this project",
                "manifest templates should only substitute values (var(), env_var(), target): "
                "remove loops and heavy expressions, and share one template between tables",
            )

    def _elapsed(self) -> float:
        running = time.perf_counter() - self._started if self._started is not None else 0.0
        return self.seconds + running


def weight(value: Any, cap: int) -> int:
    """About how many characters ``value`` renders to; stops counting once past ``cap``.

    Iterative, and generators are not consumed (they count as small; iterating them ticks)."""
    total = 0
    pending = [value]
    while pending and total <= cap:
        item = pending.pop()
        if isinstance(item, str | bytes):
            total += len(item)
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 1
        elif isinstance(item, list | tuple | set | frozenset):
            total += 2 * len(item) + 2
            pending.extend(item)
        elif isinstance(item, dict):
            total += 4 * len(item) + 2
            pending.extend(item.keys())
            pending.extend(item.values())
        else:
            total += 16
    return total


_PRINTF_FIELD = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")


def _printf_width(text: str) -> int:
    """The largest width or precision in a printf-style format (``*`` counts as unbounded)."""
    widest = 0
    for match in _PRINTF_FIELD.finditer(text):
        for number in match.groups():
            if number == "*":
                return 1 << 62
            if number:
                widest = max(widest, int(number[:19]))
    return widest


_STR_METHODS = frozenset(
    {
        "capitalize", "casefold", "count", "endswith", "find", "index", "isalnum", "isalpha",
        "isdigit", "islower", "isspace", "isupper", "join", "lower", "lstrip", "partition",
        "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rpartition", "rsplit",
        "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper",
    }
)  # fmt: skip
_CONTAINER_METHODS = frozenset({"get", "items", "keys", "values", "count", "index"})
_SAFE_FILTERS = frozenset(
    {
        "abs", "capitalize", "count", "d", "default", "dictsort", "e", "escape", "filesizeformat",
        "first", "float", "forceescape", "groupby", "int", "items", "join", "last", "length",
        "list", "lower", "map", "max", "min", "reject", "rejectattr", "replace", "reverse", "round",
        "safe", "select", "selectattr", "sort", "string", "striptags", "sum", "title", "tojson",
        "trim", "truncate", "unique", "upper", "urlencode", "wordcount",
    }
)  # fmt: skip
"""Filters whose result is at most a constant factor larger than their input. Left out:
center, indent, format, wordwrap, batch, slice (a number argument multiplies the output),
pprint, random, urlize, xmlattr (not needed to substitute values)."""


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """An immutable sandbox whose templates are charged to a ``WorkBudget`` and kept small."""

    intercepted_binops = frozenset({"+", "-", "*", "/", "//", "%", "**"})
    intercepted_unops = frozenset({"+", "-"})

    def __init__(self, budget: WorkBudget, **options: Any) -> None:
        super().__init__(**options)
        self.budget = budget
        self.limits = budget.limits
        self.globals.pop("lipsum", None)  # lipsum(n) writes n paragraphs
        self.globals["range"] = self.bounded_range
        self.filters = {name: self._bounded_filter(name, FILTERS[name]) for name in _SAFE_FILTERS}
        self.filters["join"] = self._bounded_filter("join", self._join_filter)
        self.filters["replace"] = self._bounded_filter("replace", self._replace_filter)
        self._own_callables = (self.bounded_range, self.counted, self.bounded_concat)

    # -- the hooks Jinja's sandbox calls -------------------------------------------------

    def call_binop(self, context: Context, operator_: str, left: Any, right: Any) -> Any:
        self.budget.tick()
        self._check_binop(operator_, left, right)
        return self.checked(self.binop_table[operator_](left, right))

    def call_unop(self, context: Context, operator_: str, arg: Any) -> Any:
        self.budget.tick()
        return self.unop_table[operator_](arg)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Only the project's functions, macros and size-preserving methods may be called."""
        __self.budget.tick()
        __self._check_callable(__obj, args)
        return __self.checked(__context.call(__obj, *args, **kwargs))

    def _generate(
        self, source: nodes.Template, name: str | None, filename: str | None, defer_init: bool = False
    ) -> str:
        """Every template (and expression) is rewritten before code generation: loops iterate
        through ``counted`` and ``~`` joins through ``bounded_concat``, neither of which Jinja's
        sandbox intercepts."""
        for loop in source.find_all(nodes.For):
            loop.iter = nodes.Call(nodes.EnvironmentAttribute("counted"), [loop.iter], [], None, None)
        for concat in list(source.find_all(nodes.Concat)):
            call = nodes.Call(nodes.EnvironmentAttribute("bounded_concat"), concat.nodes, [], None, None)
            concat.nodes = [call]
        return super()._generate(source, name, filename, defer_init)

    # -- what templates reach through the rewrite and the globals ------------------------

    def counted(self, iterable: Iterable[Any]) -> Iterator[Any]:
        """The items of a loop, each charged as one step."""
        for item in iterable:
            self.budget.tick()
            yield item

    def bounded_concat(self, *parts: Any) -> str:
        texts = [str(part) for part in parts]
        self._check_size(sum(map(len, texts)), "a '~' concatenation")
        return "".join(texts)

    def bounded_range(self, *args: int) -> range:
        numbers = range(*args)
        if len(numbers) > self.limits.max_range:
            raise TemplateLimitError(
                f"range() of {len(numbers)} numbers (at most {self.limits.max_range})", _SIZE_HINT
            )
        return numbers

    def checked(self, value: Any) -> Any:
        """``value``, after making sure it is small (a number or a string/list of bounded size)."""
        if isinstance(value, int) and not isinstance(value, bool):
            self._check_bits(value.bit_length())
        else:
            self._check_size(weight(value, self.limits.max_value_chars), "a value")
        return value

    # -- checks ----------------------------------------------------------------------------

    def _check_binop(self, operator_: str, left: Any, right: Any) -> None:
        if operator_ == "**" and _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
            self._check_bits(abs(left).bit_length() * right)
        elif operator_ == "*":
            self._check_product(left, right)
        elif operator_ == "+" and not (_is_number(left) and _is_number(right)):
            self._check_size(weight(left, self._cap) + weight(right, self._cap), "a '+'")
        elif operator_ == "%" and isinstance(left, str):
            self._check_size(_printf_width(left) + len(left) + weight(right, self._cap), "a '%' format")

    def _check_product(self, left: Any, right: Any) -> None:
        if _is_int(left) and _is_int(right):
            self._check_bits(abs(left).bit_length() + abs(right).bit_length())
            return
        for sequence, times in ((left, right), (right, left)):
            if _is_int(times) and not _is_number(sequence):
                self._check_size(weight(sequence, self._cap) * max(times, 0), "a '*' repetition")

    def _check_callable(self, function: Any, args: tuple[Any, ...]) -> None:
        if function in self._own_callables or function in self.globals.values():
            return
        if isinstance(function, Macro | Namespace | Cycler | Joiner):
            return
        owner = getattr(function, "__self__", None)
        name = getattr(function, "__name__", "")
        if isinstance(owner, LoopContext | Cycler | Joiner) or isinstance(function, LoopContext):
            return
        if isinstance(owner, str) and name in _STR_METHODS:
            self._check_str_method(owner, name, args)
            return
        if isinstance(owner, dict | list | tuple) and name in _CONTAINER_METHODS:
            return
        raise TemplateLimitError(
            f"calling {name or type(function).__name__}() is not allowed in manifest templates",
            "use var(), env_var(), target, and plain string methods (lower, replace, split, ...)",
        )

    def _check_str_method(self, text: str, name: str, args: tuple[Any, ...]) -> None:
        if name == "replace" and len(args) >= 2:
            self._check_size(_replaced_length(text, args[0], args[1], args[2:]), "a replace()")
        elif name == "join" and args:
            self._check_size(_joined_length(self._materialize(args[0]), text), "a join()")

    def _join_filter(self, context: Any, value: Any, d: str = "", attribute: Any = None) -> str:
        items = self._materialize(value)
        if attribute is None:
            self._check_size(_joined_length(items, str(d)), "a join")
        return str(FILTERS["join"](context, items, d, attribute))

    def _replace_filter(self, context: Any, text: Any, old: str, new: str, count: int | None = None) -> str:
        source = str(text)
        self._check_size(_replaced_length(source, old, new, () if count is None else (count,)), "a replace")
        return str(FILTERS["replace"](context, text, old, new, count))

    def _bounded_filter(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(function)
        def bounded(*args: Any, **kwargs: Any) -> Any:
            self.budget.tick()
            result = function(*args, **kwargs)
            if isinstance(result, Iterator):
                return self.counted(result)
            return self.checked(result)

        if name in ("join", "replace"):
            bounded.jinja_pass_arg = FILTERS[name].jinja_pass_arg  # type: ignore[attr-defined]
        return bounded

    def _materialize(self, value: Any) -> list[Any]:
        """A lazy sequence (map, select) as a list, charging each item and bounding the size."""
        items: list[Any] = []
        for item in self.counted(value if isinstance(value, Iterable) else [value]):
            items.append(item)
            self._check_size(2 * len(items), "a sequence")
        return items

    @property
    def _cap(self) -> int:
        return self.limits.max_value_chars

    def _check_size(self, size: int, what: str) -> None:
        if size > self.limits.max_value_chars:
            raise TemplateLimitError(
                f"{what} would make a value of more than {self.limits.max_value_chars} characters",
                _SIZE_HINT,
            )

    def _check_bits(self, bits: int) -> None:
        if bits > self.limits.max_int_bits:
            raise TemplateLimitError(
                f"a number larger than 2**{self.limits.max_int_bits}",
                _NUMBER_HINT,
            )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float)


def _replaced_length(text: str, old: Any, new: Any, count: tuple[Any, ...]) -> int:
    hits = text.count(str(old))
    if count and _is_int(count[0]) and count[0] >= 0:
        hits = min(hits, count[0])
    return len(text) + hits * max(len(str(new)) - len(str(old)), 0)


def _joined_length(items: list[Any], separator: str) -> int:
    return sum(len(str(item)) for item in items) + len(separator) * max(len(items) - 1, 0)
