"""mkdocs hooks of every masrl site build and preview (``mkdocs_config`` and ``site serve`` name
this file; mkdocs loads it afresh for each build).

Theme templates are compiled once per process: ``site serve`` rebuilds and the test suite build
the site many times from the same templates, and compiling them is a quarter of a small site's
build. The compiled code is kept in ``COMPILED_TEMPLATES`` of the builder (a module loaded once);
jinja2 checks each template's source checksum, so an edited template is compiled again.
"""

from __future__ import annotations

import jinja2

from masrl.render.site.builder import COMPILED_TEMPLATES


class _KeptForTheProcess(jinja2.BytecodeCache):
    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = COMPILED_TEMPLATES.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        COMPILED_TEMPLATES[bucket.key] = bucket.bytecode_to_string()


def on_env(env: jinja2.Environment, config, files) -> jinja2.Environment:
    env.bytecode_cache = _KeptForTheProcess()
    return env
