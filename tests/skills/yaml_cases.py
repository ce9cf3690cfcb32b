#!/usr/bin/env python3
"""Generates front matter in the YAML subset skill files use, with PyYAML's reading of each.

Usage: yaml_cases.py SEED COUNT. Prints one JSON object per line:
  {"yaml": text, "expected": canonical JSON of PyYAML BaseLoader's result, or null when PyYAML
   refuses the text, "error": PyYAML's message or ""}
BaseLoader keeps every scalar as text, as the skill reader does. Canonical JSON: sorted keys,
no spaces, non-ASCII kept (json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":"))).
"""
import json
import random
import sys

import yaml

WORDS = ["alpha", "beta", "gamma", "pdf", "review", "C++", "don't", "e.g.", "50%", "a/b",
         "x-y", "v1.2", "true", "null", "~", "2026-03-17", "héllo", "naïve", "→", "日本",
         "(note)", "it's", "a,b", "q?", "http://x.test/p"]
KEYS = ["name", "description", "license", "compatibility", "allowed-tools", "argument-hint",
        "origin", "version", "Name", "user-invocable"]
SAFE_PUNCT = [".", ",", ";", "!", "?", " -", "'s"]


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def plain(rng):
    text = words(rng, rng.randint(1, 6))
    if rng.random() < 0.3:
        text += rng.choice(SAFE_PUNCT)
    return text


def single_quoted(rng):
    text = words(rng, rng.randint(1, 5))
    text += rng.choice(["", ": colon", " # hash", ' "dq"', " it''s", ""])
    return "'" + text.replace("'", "''").replace("''''", "''") + "'"


def double_quoted(rng):
    parts = [words(rng, rng.randint(1, 4))]
    parts.append(rng.choice(["", "\\n", "\\t", '\\"', "\\\\", "\\u00e9", ": x", " # y", "'"]))
    parts.append(words(rng, rng.randint(0, 3)))
    return '"' + " ".join(p for p in parts if p) + '"'


def block(rng, indent):
    style = rng.choice(["|", ">"]) + rng.choice(["", "-", "+"])
    pad = " " * (indent + 2)
    lines = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.2 and lines:
            lines.append("")
        extra = "  " if rng.random() < 0.15 else ""
        lines.append(pad + extra + words(rng, rng.randint(1, 5)))
    if rng.random() < 0.3:
        lines.append("")
    return style + "\n" + "\n".join(lines)


def flow(rng):
    items = []
    for _ in range(rng.randint(0, 4)):
        kind = rng.random()
        if kind < 0.5:
            items.append(rng.choice(["Read", "Grep", "Bash", "web-search", "x_y"]))
        elif kind < 0.75:
            items.append("'" + words(rng, 2).replace("'", "''") + "'")
        else:
            items.append('"' + rng.choice(["Azure MCP/docs", "a, b", "x]y"]) + '"')
    return "[" + ", ".join(items) + "]"


def scalar(rng, indent):
    r = rng.random()
    if r < 0.35:
        return plain(rng)
    if r < 0.5:
        return single_quoted(rng)
    if r < 0.65:
        return double_quoted(rng)
    if r < 0.85:
        return block(rng, indent)
    return flow(rng)


def entry(rng, key):
    r = rng.random()
    if r < 0.7:
        text = f"{key}: {scalar(rng, 0)}"
    elif r < 0.8:
        items = "\n".join(f"  - {plain(rng)}" for _ in range(rng.randint(1, 3)))
        text = f"{key}:\n{items}"
    elif r < 0.9:
        inner = "\n".join(f"  k{i}: {scalar(rng, 2)}" for i in range(rng.randint(1, 3)))
        text = f"{key}:\n{inner}"
    else:
        text = f"{key}: {plain(rng)}\n  {plain(rng)}"  # a plain scalar over two lines
    if rng.random() < 0.15:
        text = "# a comment line\n" + text
    return text


def lenient(rng):
    """Front matter PyYAML refuses and the skill reader reads with a diagnostic."""
    return rng.choice([
        f"name: x\ndescription: writes \"fix: {plain(rng)}\" and more\n",
        f"description: Use when: {plain(rng)}\n",
        f"description: {plain(rng)}\n  then: {plain(rng)}\n",
    ])


def canonical(value):
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    for _ in range(count):
        if rng.random() < 0.1:
            text = lenient(rng)
        else:
            keys = rng.sample(KEYS, rng.randint(1, 6))
            text = "\n".join(entry(rng, k) for k in keys) + "\n"
        try:
            expected = canonical(yaml.load(text, Loader=yaml.BaseLoader))
            error = ""
        except yaml.YAMLError as e:
            expected, error = None, str(e).replace("\n", " ")
        print(json.dumps({"yaml": text, "expected": expected, "error": error}))


if __name__ == "__main__":
    main()
