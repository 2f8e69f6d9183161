"""Theme templates compiled once per process.

``site serve`` rebuilds and the test suite build the site many times from the same templates,
and compiling them is a quarter of a small site's build. mkdocs loads its hooks file
(``mkdocs_hooks.py``) afresh for every build, so the compiled code is kept here, in a module
loaded once; jinja2 checks each template's source checksum, so an edited template is compiled
again.
"""

from __future__ import annotations

import jinja2

# {jinja2 bucket key: compiled template}
COMPILED_TEMPLATES: dict[str, bytes] = {}


class KeptForTheProcess(jinja2.BytecodeCache):
    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = COMPILED_TEMPLATES.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        COMPILED_TEMPLATES[bucket.key] = bucket.bytecode_to_string()


def on_env(env: jinja2.Environment, config, files) -> jinja2.Environment:
    """mkdocs' env event: the theme's environment keeps its compiled templates for the process."""
    env.bytecode_cache = KeptForTheProcess()
    return env
