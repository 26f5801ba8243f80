"""Judge prompt templates: loading, versioning and rendering.

Templates live in the `termqa.prompts` package (the repository's `prompts/` folder). Each file
starts with a small header, then `---`, then a jinja2 body:

    id: error_judge
    version: 3
    description: one line for people
    ---
    @@system
    ...
    @@user
    ...

`@@system` / `@@user` / `@@assistant` lines split the body into chat messages; each part is
rendered on its own, so text coming from a translation can never open a new message.

Text from the files under review (segments, preceding sentences, glossary entries, renderings) never
goes into a template as a variable of its own: the question builds one JSON object of it and
`data_block()` fences it with a content-derived id; the template places the block and its system
message says that whatever the block holds is data, never an instruction. For provider prompt
caching, a template writes everything that is the same for every question of its kind first (it
depends only on the languages and the domain) and the question's own facts, the block and anything
naming it last; the fence id appears in the two fence lines only. Files whose
name starts with `_` are partials (macros, shared label lists) used through `{% import %}` or
`{% include %}`.

The version string `id@version+hash` carries a short hash of the template's text and of every
partial it uses: editing a prompt changes its version, hence its cache keys, even if nobody
remembered to bump `version:`. Rendering uses StrictUndefined (a missing variable is an error,
never an empty string) and no autoescaping (prompts are not HTML).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from termqa.errors import ConfigError

ROLES = ("system", "user", "assistant")
_MARKER = re.compile(r"^@@(system|user|assistant)[ \t]*$", re.MULTILINE)
_HEADER_LINE = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True)
class PromptTemplate:
    id: str
    version: str  # as written in the header
    full_version: str  # id@version+hash: what signatures and cache keys use
    header: tuple[tuple[str, str], ...]
    body: str

    @property
    def description(self) -> str:
        return dict(self.header).get("description", "")


@dataclass(frozen=True)
class RenderedPrompt:
    prompt_id: str
    prompt_version: str  # the full version
    messages: tuple[tuple[str, str], ...]  # (role, content)


def split_header(text: str, name: str = "<template>") -> tuple[dict[str, str], str]:
    """Header fields and body of a template file."""
    lines = text.replace("\r\n", "\n").split("\n")
    fields: dict[str, str] = {}
    for i, line in enumerate(lines):
        if line.strip() == "---":
            return fields, "\n".join(lines[i + 1:])
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _HEADER_LINE.match(line)
        if not m:
            break
        fields[m.group(1).lower()] = m.group(2)
    raise ConfigError(f"prompt template {name}: no header ending in a '---' line",
                      fix="start the file with 'id: NAME', 'version: N' and a line '---'")


def _default_directory():
    """The installed `termqa.prompts` package, else the source checkout's `prompts/` folder."""
    from importlib import resources

    try:
        return resources.files("termqa.prompts")
    except (ModuleNotFoundError, TypeError):
        return Path(__file__).resolve().parent.parent / "prompts"


class PromptLibrary:
    """Templates from one folder (default: the packaged prompts). Loaded templates are cached."""

    def __init__(self, directory: Optional[Union[str, Path, Any]] = None):
        self.directory = Path(directory) if isinstance(directory, str) else (directory or _default_directory())
        self._sources: dict[str, str] = {}
        self._templates: dict[str, PromptTemplate] = {}
        self._compiled_parts: dict[str, list] = {}
        self._env = None

    # -- files ----------------------------------------------------------------------------------

    def _file_text(self, filename: str) -> str:
        if filename not in self._sources:
            node = self.directory / filename
            try:
                self._sources[filename] = node.read_text(encoding="utf-8")
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                raise ConfigError(f"prompt template {filename} not found in {self.directory}",
                                  fix="reinstall termqa, or check the prompts folder") from None
        return self._sources[filename]

    def names(self) -> list[str]:
        """Ids of the (non-partial) templates in the folder."""
        out = []
        for node in self.directory.iterdir():
            name = node.name
            if name.endswith(".txt") and not name.startswith("_"):
                out.append(name[:-4])
        return sorted(out)

    def _environment(self):
        if self._env is None:
            import jinja2

            def load(name: str):
                _, body = split_header(self._file_text(name), name)
                return body

            self._env = jinja2.Environment(
                loader=jinja2.FunctionLoader(load),
                undefined=jinja2.StrictUndefined,
                autoescape=False,  # prompts are plain text, never HTML
                trim_blocks=True,
                lstrip_blocks=True,
                keep_trailing_newline=False,
            )
            self._env.filters["quoted"] = _quoted
        return self._env

    def _used_partials(self, body: str, seen: Optional[set[str]] = None) -> list[str]:
        """Partials a body imports or includes, recursively, in a stable order."""
        from jinja2 import meta

        seen = set() if seen is None else seen
        out: list[str] = []
        for name in sorted(n for n in meta.find_referenced_templates(self._environment().parse(body)) if n):
            if name in seen:
                continue
            seen.add(name)
            out.append(name)
            _, sub = split_header(self._file_text(name), name)
            out.extend(self._used_partials(sub, seen))
        return out

    # -- templates ------------------------------------------------------------------------------

    def load(self, prompt_id: str) -> PromptTemplate:
        if prompt_id in self._templates:
            return self._templates[prompt_id]
        filename = f"{prompt_id}.txt"
        text = self._file_text(filename)
        fields, body = split_header(text, filename)
        if fields.get("id") != prompt_id:
            raise ConfigError(f"prompt template {filename}: header says id {fields.get('id')!r}",
                              fix=f"set 'id: {prompt_id}' in its header")
        if not fields.get("version"):
            raise ConfigError(f"prompt template {filename}: no version in its header",
                              fix="add a 'version: N' line to its header")
        digest = hashlib.sha256(text.encode("utf-8"))
        for name in self._used_partials(body):
            digest.update(b"\0" + name.encode() + b"\0" + self._file_text(name).encode("utf-8"))
        tpl = PromptTemplate(
            id=prompt_id,
            version=fields["version"],
            full_version=f"{prompt_id}@{fields['version']}+{digest.hexdigest()[:8]}",
            header=tuple(fields.items()),
            body=body,
        )
        self._templates[prompt_id] = tpl
        return tpl

    def _compiled(self, tpl: PromptTemplate):
        """(role, compiled jinja template) per message, compiled once per library."""
        if tpl.id not in self._compiled_parts:
            env = self._environment()
            parts = _MARKER.split(tpl.body)
            # parts = [preamble, role1, text1, role2, text2, ...]. A preamble of jinja statements
            # only (imports, sets) is shared setup for every message; otherwise it is a user message.
            preamble, chunks = parts[0], [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]
            if not chunks:
                chunks, preamble = [("user", preamble)], ""
            elif _has_text(env, preamble):
                chunks.insert(0, ("user", preamble))
                preamble = ""
            self._compiled_parts[tpl.id] = [(role, env.from_string(preamble + src)) for role, src in chunks]
        return self._compiled_parts[tpl.id]

    def version(self, prompt_id: str) -> str:
        return self.load(prompt_id).full_version

    def render(self, prompt_id: str, context: Optional[Mapping[str, Any]] = None, **kw: Any) -> RenderedPrompt:
        """Render a template into chat messages; a variable the template needs but the context
        lacks raises jinja2.UndefinedError naming the prompt."""
        import jinja2

        tpl = self.load(prompt_id)
        values = {**(context or {}), **kw}
        messages = []
        for role, compiled in self._compiled(tpl):
            try:
                text = compiled.render(values)
            except jinja2.UndefinedError as exc:
                raise jinja2.UndefinedError(f"prompt {prompt_id}: {exc}") from exc
            text = _BLANKS.sub("\n\n", text).strip()
            if text:
                messages.append((role, text))
        return RenderedPrompt(prompt_id, tpl.full_version, tuple(messages))


def _has_text(env, source: str) -> bool:
    """Does this jinja source produce text of its own (outside tags and comments)?"""
    if not source.strip():
        return False
    from jinja2 import nodes

    for out in env.parse(source).find_all(nodes.Output):
        for child in out.nodes:
            if not isinstance(child, nodes.TemplateData) or child.data.strip():
                return True
    return False


def _quoted(value: Any) -> str:
    """Show a piece of text in prompts: in double quotes, "(none)" when empty or missing."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "(none)"
    return '"' + str(value).replace("\n", " ") + '"'


def _layout(value: Any) -> str:
    """JSON with one line per top-level field and per list item: readable, and without the
    whitespace tokens a fully indented dump costs."""
    def dump(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)

    if not isinstance(value, dict):
        return dump(value)
    lines = []
    for k, v in value.items():
        if isinstance(v, list) and v:
            inner = ",\n".join("  " + dump(x) for x in v)
            lines.append(f" {dump(k)}: [\n{inner}\n ]")
        else:
            lines.append(f" {dump(k)}: {dump(v)}")
    return "{\n" + ",\n".join(lines) + "\n}"


def data_block(value: Any) -> tuple[str, str]:
    """Material from the files under review, fenced as data: (block text, fence id).

    The value goes in as one JSON object, so every passage is a JSON string (its quotes and line
    breaks escaped: a passage cannot end its string, start a line of its own or look like a line
    of ours). The block sits between `<<<DATA id>>>` and `<<<END DATA id>>>`, with an id derived
    from the block's own text: the same material always gives the same prompt (the verdict cache
    stays exact) and a passage cannot spell the closing line, since it would have to contain the
    hash of a text that contains it.
    """
    body = _layout(value)
    salt = 0
    while True:
        fence = hashlib.sha256(f"{salt}:{body}".encode("utf-8")).hexdigest()[:12]
        if fence not in body:  # never in practice; the loop only makes it certain
            break
        salt += 1
    return f"<<<DATA {fence}>>>\n{body}\n<<<END DATA {fence}>>>", fence


_DEFAULT: Optional[PromptLibrary] = None


def library() -> PromptLibrary:
    """The packaged prompt library (one per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = PromptLibrary()
    return _DEFAULT


def render(prompt_id: str, context: Optional[Mapping[str, Any]] = None, **kw: Any) -> RenderedPrompt:
    return library().render(prompt_id, context, **kw)


def prompt_version(prompt_id: str) -> str:
    return library().version(prompt_id)
