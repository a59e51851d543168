#!/usr/bin/env python3
"""The import circles of a crate: files that reach each other through `crate::`, `super::` and
`self::` paths (the strongly connected components of the file graph), largest first.

    scripts/import-circles.py crates/cli crates/engine
    scripts/import-circles.py --max cli=2 --max engine=3 crates/cli crates/engine

Each file under `<crate>/src` is a module (`foo.rs` and `foo/bar.rs`, `lib.rs`/`main.rs` the
root). A path `crate::a::b::c` (in a `use`, braces expanded, or inline in code) names the file of
its longest prefix that is a module; `super::` and `self::` are resolved from the file's module
(an inline `mod tests` counts as its file). A file's edge to its own parent module through
`super::` counts like any other. Comments and string literals are ignored.

With `--max NAME=N` the script exits 1 when a circle in crate NAME (its folder's name) has more
than N files. Used by crates/cli/tests/it/circles.rs.
"""

import os
import re
import sys


def strip(text):
    """The code without comments, string and char literals (kept as spaces, lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append("\n" * text.count("\n", i, j))
            out.append('""')
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append("\n" * text.count("\n", i, j))
            out.append('""')
            i = j + 1
        elif c == "'" :
            # a char literal ('a', '\n', '\u{..}'), not a lifetime ('a)
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand(prefix, body):
    """`a::{b, c::{d, e}}` → ['a::b', 'a::c::d', 'a::c::e'] (prefix already applied)."""
    body = body.strip()
    if not body.startswith("{"):
        return [prefix + body]
    inner, depth, parts, cur = body[1:-1], 0, [], ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        m = re.match(r"^((?:\w+\s*::\s*)*)(.*)$", p, re.S)
        out += expand(prefix + re.sub(r"\s", "", m.group(1)), m.group(2))
    return out


def modules(src):
    """{module path tuple: file} for every .rs file under src."""
    mods = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts in (["lib"], ["main"]):
                parts = []
            elif parts[-1] == "mod":
                parts = parts[:-1]
            mods[tuple(parts)] = rel
    return mods


PATH = re.compile(r"(?<![\w:])((?:crate|super|self)(?:\s*::\s*(?:\w+|\{))+)")


def inline_mods(code):
    """A function from a position in the code to the inline modules (`mod tests { ... }`)
    around it, outermost first."""
    opens = {m.end() - 1: m.group(1) for m in re.finditer(r"\bmod\s+(\w+)\s*\{", code)}
    spans, stack, depth = [], [], 0
    for i, ch in enumerate(code):
        if ch == "{":
            depth += 1
            if i in opens:
                stack.append((opens[i], depth, i))
        elif ch == "}":
            if stack and stack[-1][1] == depth:
                name, _, start = stack.pop()
                spans.append((start, i, name))
            depth -= 1

    def at(pos):
        return [name for start, end, name in sorted(spans) if start <= pos <= end]

    return at


def paths(code):
    """Every crate/super/self path in the code, `use` trees expanded, with the inline modules
    it sits in."""
    found = []
    at = inline_mods(code)
    for m in re.finditer(r"\buse\s+((?:crate|super|self)\b[^;]*);", code):
        tree = m.group(1)
        mm = re.match(r"^((?:\w+\s*::\s*)*)(.*)$", tree, re.S)
        inner = at(m.start())
        found += [(p, inner) for p in expand(re.sub(r"\s", "", mm.group(1)), mm.group(2))]
    for m in PATH.finditer(code):
        p = re.sub(r"\s", "", m.group(1)).rstrip(":{")
        found.append((p, at(m.start())))
    return found


def resolve(path, here, mods):
    """The module a path names (its longest prefix that is a file), or None."""
    segs = [s for s in path.split("::") if s and s not in ("*",)]
    segs = [s.split(" as ")[0] for s in segs]
    if not segs:
        return None
    if segs[0] == "crate":
        base, rest = [], segs[1:]
    else:
        base = list(here)
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                if not base:
                    return None
                base = base[:-1]
            rest = rest[1:]
    best = tuple(base)
    for i in range(1, len(rest) + 1):
        cand = tuple(base + rest[:i])
        if cand in mods:
            best = cand
        else:
            break
    return best if best in mods else None


def graph(src):
    mods = modules(src)
    edges = {m: set() for m in mods}
    for mod, rel in mods.items():
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            code = strip(f.read())
        for p, inner in paths(code):
            target = resolve(p, mod + tuple(inner), mods)
            if target is not None and target != mod:
                edges[mod].add(target)
    return mods, edges


def circles(mods, edges):
    """Strongly connected components with more than one file (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(mods):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(mods[m] for m in comp))
    return sorted(out, key=lambda c: (-len(c), c))


def main(argv):
    limits, crates = {}, []
    it = iter(argv)
    for a in it:
        if a == "--max":
            name, n = next(it).split("=")
            limits[name] = int(n)
        else:
            crates.append(a)
    failed = False
    for crate in crates:
        name = os.path.basename(os.path.normpath(crate))
        mods, edges = graph(os.path.join(crate, "src"))
        found = circles(mods, edges)
        biggest = max((len(c) for c in found), default=1)
        print(f"{name}: {len(mods)} files, largest circle {biggest}")
        for c in found:
            print(f"  {len(c)}: {' '.join(c)}")
        limit = limits.get(name)
        if limit is not None and biggest > limit:
            print(f"  over the limit of {limit} files")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
