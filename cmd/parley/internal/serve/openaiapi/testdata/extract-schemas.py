#!/usr/bin/env python3
"""Makes openai-chat-schemas.json from openai/openai-openapi's openapi.json.

usage: extract-schemas.py openapi.json COMMIT > openai-chat-schemas.json

Keeps the Chat Completions, Models and Error schemas and every schema they
refer to; drops descriptions, examples and x- extensions; writes OpenAPI's
`nullable: true` as JSON Schema null types and moves the refs to $defs, so
a JSON Schema 2020-12 validator reads it.
"""
import json
import sys

ROOTS = ['CreateChatCompletionRequest', 'CreateChatCompletionResponse', 'CreateChatCompletionStreamResponse',
         'ListModelsResponse', 'Model', 'ErrorResponse']
DROP = {'description', 'example', 'examples', 'discriminator', 'title', 'deprecated'}
PREFIX = '#/components/schemas/'


def refs(o, found):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == '$ref' and isinstance(v, str) and v.startswith(PREFIX):
                found.add(v[len(PREFIX):])
            else:
                refs(v, found)
    elif isinstance(o, list):
        for v in o:
            refs(v, found)


def convert(o):
    if isinstance(o, list):
        return [convert(v) for v in o]
    if not isinstance(o, dict):
        return o
    out = {}
    for k, v in o.items():
        if k in DROP or k.startswith('x-'):
            continue
        if k == '$ref':
            out[k] = v.replace(PREFIX, '#/$defs/')
        elif k in ('properties', 'patternProperties'):
            out[k] = {name: convert(s) for name, s in v.items()}
        else:
            out[k] = convert(v)
    if out.pop('nullable', False):
        if isinstance(out.get('type'), str):
            out['type'] = [out['type'], 'null']
            if 'enum' in out and None not in out['enum']:
                out['enum'] = out['enum'] + [None]
        else:
            out = {'anyOf': [out, {'type': 'null'}]}
    return out


def main():
    schemas = json.load(open(sys.argv[1]))['components']['schemas']
    need, todo = set(), list(ROOTS)
    while todo:
        name = todo.pop()
        if name in need:
            continue
        need.add(name)
        found = set()
        refs(schemas[name], found)
        todo.extend(found - need)
    doc = {'$comment': 'Chat Completions, Models and Error schemas of github.com/openai/openai-openapi openapi.json at commit '
                       + sys.argv[2] + ', made by extract-schemas.py: descriptions and x- extensions dropped, OpenAPI nullable '
                       'written as JSON Schema null types, refs moved to $defs.',
           '$defs': {name: convert(schemas[name]) for name in sorted(need)}}
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)


main()
