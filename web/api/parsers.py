"""JSON bodies that cannot take the server down or say two things at once."""

import codecs
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]
from rest_framework.utils import json

from arena.dataformat import DuplicateKey, unique_object


class SafeJSONParser(JSONParser):
    """DRF's JSON parser; a body nested too deep or with a duplicate key is a 400."""

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = get_encoding(parser_context or {})  # the request's charset (not in the stubs)
        try:
            return json.loads(
                codecs.getreader(encoding)(stream).read(),
                parse_constant=json.strict_constant if self.strict else None,
                object_pairs_hook=unique_object,
            )
        except DuplicateKey as exc:
            twice = f"JSON parse error - the key {exc.key!r} appears twice in one object."
            raise ParseError(twice) from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
