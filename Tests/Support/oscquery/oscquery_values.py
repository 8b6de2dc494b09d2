#!/usr/bin/env python3
"""Reads every node of paramd's namespace that has a VALUE on its own, with python-oscquery
(PyPI), an independent client. Prints JSON for OSCQueryValueTests to set beside /get replies.

  oscquery_values.py HOST PORT

A node without children (`/volume/db`, `/note`, `/a4`) is read by the client's own
`query_node(path)`. A parameter's node has a value and its sub-addresses as children, which
SPEC §9 asks for and the OSCQuery proposal allows, but python-oscquery 0.4.0 refuses (its
OSCPathNode is a container or a method, never both): for those, `query_node` must raise that
refusal, and the node's own attributes (its JSON less CONTENTS, fetched on its own) are parsed
by the client's `OSCPathNode.from_json`. `GET path?VALUE` is read for every such node too.
"""
import json
import socket
import sys

import requests
from pythonoscquery.osc_query_client import OSCQueryClient
from pythonoscquery.shared.osc_path_node import OSCPathNode
from zeroconf import ServiceInfo


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    client = OSCQueryClient(ServiceInfo("_oscjson._tcp.local.", "paramd-test._oscjson._tcp.local.",
                                        addresses=[socket.inet_aton(host)], port=port))
    base = f"http://{host}:{port}"

    def walk(node):
        yield node
        for child in node.get("CONTENTS", {}).values():
            yield from walk(child)

    nodes = {}
    for raw in walk(requests.get(base + "/").json()):
        if "VALUE" not in raw:
            continue
        path = raw["FULL_PATH"]
        entry = {"children": sorted(raw.get("CONTENTS", {}).keys())}
        own = requests.get(base + path).json()
        try:
            node = client.query_node(path)
            entry["read_by"] = "query_node"
        except ValueError as e:
            entry["query_node_error"] = str(e)
            node = OSCPathNode.from_json({k: v for k, v in own.items() if k != "CONTENTS"})
            entry["read_by"] = "from_json"
        entry.update({"full_path": node.full_path, "access": int(node.access), "value": node.value,
                      "type": own.get("TYPE"), "value_query": requests.get(base + path + "?VALUE").json().get("VALUE")})
        nodes[path] = entry
    print(json.dumps({"nodes": nodes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
