#!/usr/bin/env python3
"""include-cycles.py: radik's project includes must only run downward.

Reads the #include "..." lines of the C sources and headers in src/ and cuda/, makes a graph of
modules (a module is a file's name without its extension: radik_scan.c and radik_scan.h are one
module) with an edge from each module to every module whose header it includes, and prints every
cycle.  Exits 1 when there is one, 0 otherwise.
  usage: python3 test/include-cycles.py [directory ...]    (default: src cuda)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(directories):
    graph = {}
    for directory in directories:
        for name in sorted(os.listdir(directory)):
            if not name.endswith(('.c', '.h', '.cu', '.cuh')):
                continue
            module = name.split('.')[0]
            with open(os.path.join(directory, name), encoding='utf-8') as f:
                targets = {os.path.basename(t).split('.')[0] for t in INCLUDE.findall(f.read())}
            graph.setdefault(module, set()).update(t for t in targets if t != module)
    # keep only edges to the project's own modules
    return {m: {t for t in ts if t in graph} for m, ts in graph.items()}


def cycles(graph):
    found, stack, state = [], [], {}

    def visit(m):
        state[m] = 'open'
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 'open':
                found.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 'done'

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    directories = [os.path.join(root, d) for d in (sys.argv[1:] or ['src', 'cuda'])]
    graph = modules(directories)
    found = cycles(graph)
    for cycle in found:
        print('include cycle: ' + ' -> '.join(cycle))
    print(f'{len(graph)} modules, {sum(len(t) for t in graph.values())} edges, {len(found)} cycles')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
