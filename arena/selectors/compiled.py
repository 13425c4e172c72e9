"""Page reads compiled to SQL once per process. Django builds a query's SQL anew on every call,
which takes five to twenty times as long as running it on a page's few rows; the pages' fixed
reads are compiled once (per database and per length of their list values) and then run with the
values of each request, their rows converted as the ORM converts them (JSON, dates, booleans)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, router
from django.db.models import Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

# Stand-ins for the values while a query is compiled: an int no key has (within every backend's
# integer range, so no lookup drops it as out of range) and a string no slug or name has.
_INT_MARK = -1_987_654_321
_STR_MARK = "\x00mark"

# At most this many compilations of one read are kept (one per database, names and list lengths).
PLANS_MAX = 256

Value = int | str | Sequence[int] | Sequence[str]


def _mark(value: Any, n: int) -> int | str:
    if isinstance(value, str):
        return f"{_STR_MARK}{n}"
    if isinstance(value, int):
        return _INT_MARK - n
    raise TypeError(f"a compiled read takes ints and strings, not {type(value).__name__}")


# a compiled read: its SQL, its parameters, where the values go, its converters and its width
type _Plan = tuple[str, list[Any], list[tuple[int, str, int | None]], list[Any], int]


class CompiledRead:
    """A ``values_list`` read whose SQL is compiled once. ``build`` takes the values by name and
        returns the queryset; it is called once per database (and per set of names and length of each
    list value: ``build`` may leave out filters whose value is not given) with
        stand-ins, whose places among the SQL's parameters are then filled with each call's values.

        Every value must reach the SQL as itself, once (``filter(x=value)``, ``x__in=list``): not
        through a lookup that rewrites it (``icontains``); a list must not be empty."""

    def __init__(self, model: type[Model], build: Callable[..., QuerySet]):
        self.model = model
        self.build = build
        self._plans: dict[tuple[Any, ...], _Plan] = {}

    def _compile(self, alias: str, values: dict[str, Value]) -> _Plan:
        marks: dict[str, Any] = {}
        places: dict[Any, tuple[str, int | None]] = {}
        n = 0
        for name, value in values.items():
            if isinstance(value, (list, tuple)):
                if not value:
                    raise ValueError(f"{name}: a compiled read takes no empty list")
                marks[name] = []
                for i, item in enumerate(value):
                    mark = _mark(item, n := n + 1)
                    marks[name].append(mark)
                    places[mark] = (name, i)
            else:
                marks[name] = _mark(value, n := n + 1)
                places[marks[name]] = (name, None)
        queryset = self.build(**marks).using(alias)
        compiler = queryset.query.get_compiler(alias)
        sql, params = compiler.as_sql()
        params = list(params)
        slots = [(i, *places[p]) for i, p in enumerate(params) if _hashable(p) and p in places]
        if sorted(places.values(), key=repr) != sorted(((s[1], s[2]) for s in slots), key=repr):
            raise ValueError("each value of a compiled read must reach its SQL once, as itself")
        fields = [s[0] for s in compiler.select[: compiler.col_count]]
        converters = list(compiler.get_converters(fields).items())
        return sql, params, slots, converters, compiler.col_count

    def rows(self, **values: Value) -> list[Sequence[Any]]:
        """The rows of the read with these values, as ``values_list`` gives them."""
        alias = router.db_for_read(self.model)
        shape = (
            alias,
            *((k, len(v) if isinstance(v, (list, tuple)) else -1) for k, v in values.items()),
        )
        plan = self._plans.get(shape)
        if plan is None:
            if len(self._plans) >= PLANS_MAX:  # lists of many lengths: start again
                self._plans.clear()
            plan = self._plans[shape] = self._compile(alias, values)
        sql, params, slots, converters, width = plan
        args = list(params)
        for at, name, i in slots:
            value = values[name]
            args[at] = value if i is None else value[i]  # type: ignore[index]
        connection = connections[alias]
        with connection.cursor() as cursor:
            cursor.execute(sql, args)
            rows: list[Any] = cursor.fetchall()
        if rows and len(rows[0]) != width:
            rows = [row[:width] for row in rows]
        if converters and rows:
            # column by column: a comprehension per converted column rather than a loop per value
            columns = list(zip(*rows, strict=True))
            for pos, (convs, expression) in converters:
                column = columns[pos]
                for converter in convs:
                    column = [converter(value, expression, connection) for value in column]
                columns[pos] = column
            rows = list(zip(*columns, strict=True))
        return rows


def _hashable(value: Any) -> bool:
    return isinstance(value, (int, str))


def model_fields(model: type[Model], prefix: str = "") -> list[str]:
    """The names that read each of ``model``'s columns in a ``values_list`` (through the relation
    ``prefix``, ``"product__"``), in the model's order, for ``model_of``."""
    return [f"{prefix}{f.name}" for f in model._meta.concrete_fields]


def model_of[M: Model](model: type[M], row: Sequence[Any], db: str = DEFAULT_DB_ALIAS) -> M:
    """An instance of ``model`` from the values that ``model_fields`` reads, as the ORM builds it
    from a row of database ``db``."""
    names = _attnames(model)
    if names is None or len(row) != len(names) or _init_listened(model):
        # (no field names: a row of every concrete field in order, which ``from_db`` takes as it is)
        return model.from_db(db, None, row)  # type: ignore[arg-type]  # the stubs want the names
    # What ``Model.__init__`` does with a whole row and no keyword, without its per-field
    # ``setattr``: the fields' values straight into the instance's ``__dict__`` (a new instance
    # has no cached relation for a foreign key's ``_id`` descriptor to clear), then its state as
    # ``from_db`` sets it. A page builds dozens of instances so.
    instance = model.__new__(model)
    instance.__dict__.update(zip(names, row, strict=True))
    state = instance._state = ModelState()
    state.adding = False
    state.db = db
    return instance


@functools.cache
def _attnames(model: type[Model]) -> tuple[str, ...] | None:
    """The attribute names of ``model``'s concrete fields in order; None when the model builds
    its instances its own way (its own ``__init__`` or ``from_db``): those go through the ORM."""
    if model.__init__ is not Model.__init__ or model.from_db.__func__ is not Model.from_db.__func__:  # type: ignore[attr-defined]
        return None
    return tuple(f.attname for f in model._meta.concrete_fields)


def _init_listened(model: type[Model]) -> bool:
    """Whether something listens to ``model``'s instances being built (``pre_init``,
    ``post_init``): then they are built by ``Model.__init__``, which sends them. (Nothing
    usually does: the empty lists answer before a lookup per instance.)"""
    if not pre_init.receivers and not post_init.receivers:
        return False
    return pre_init.has_listeners(model) or post_init.has_listeners(model)


def arena_rows_read(model: type[Model], *joined: str) -> CompiledRead:
    """A compiled read of one arena's rows of ``model`` (its ``objects``) in page order
    (``position``), as ``values_list``: its own fields (``model_fields``), then ``joined``."""
    return CompiledRead(
        model,
        lambda arena: (
            model.objects.filter(arena=arena)  # type: ignore[attr-defined]  # (every model read so has one)
            .order_by("position")
            .values_list(*model_fields(model), *joined)
        ),
    )


@dataclass(frozen=True, slots=True)
class InstanceRead:
    """A queryset of model instances compiled once (``of``), then run with its parameters
    (``one``): its row made an instance as a raw query makes one, the model's columns converted as
    the ORM converts them and its annotations set as read. For a read whose parameters are all of
    one request's (its caller puts them in ``params``' places); ``CompiledRead`` places values
    itself."""

    model: type[Model]
    alias: str
    sql: str
    params: tuple[Any, ...]
    names: tuple[str, ...]  # the model's columns (attribute names), which come first
    converters: tuple[tuple[int, tuple[Any, ...], Any], ...]
    annotations: tuple[tuple[str, int], ...]  # (name, column)

    @classmethod
    def of(cls, queryset: QuerySet[Any], alias: str) -> InstanceRead:
        compiler = queryset.query.get_compiler(alias)
        sql, params = compiler.as_sql()
        fields = compiler.klass_info["select_fields"] if compiler.klass_info else []
        if fields != list(range(len(fields))):
            raise ValueError("an instance read's model columns come first")
        columns = [compiler.select[i][0] for i in fields]
        return cls(
            model=queryset.model,
            alias=alias,
            sql=sql,
            params=tuple(params),
            names=tuple(c.target.attname for c in columns),
            converters=tuple(
                (at, tuple(convs), expression)
                for at, (convs, expression) in compiler.get_converters(columns).items()
            ),
            annotations=tuple(compiler.annotation_col_map.items()),
        )

    def one(self, params: Sequence[Any]) -> Any:
        """The first row's instance, None when there is none."""
        connection = connections[self.alias]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        values = list(row[: len(self.names)])
        for at, convs, expression in self.converters:
            value = values[at]
            for converter in convs:
                value = converter(value, expression, connection)
            values[at] = value
        instance = self.model.from_db(self.alias, self.names, values)
        for name, at in self.annotations:
            setattr(instance, name, row[at])
        return instance
