#!/usr/bin/env python3
"""Reads paramd's OSCQuery namespace with an independent client: python-oscquery (PyPI), whose
OSCQueryClient takes a zeroconf ServiceInfo, as its browser would hand it over. Prints JSON for
the Swift end-to-end test (OSCQueryEndToEndTests) to check.

  oscquery_client.py HOST PORT [--browse SECONDS]

With --browse, the service is found by python-oscquery's own zeroconf browser (a real mDNS
announcement, from paramd through Avahi) instead of being described by hand.

python-oscquery 0.4.0 models a node as either a container or a method, never both
(OSCPathNode refuses a node with CONTENTS and VALUE); OSCQuery allows it (libossia builds such
nodes) and SPEC §9 asks for it: a parameter's node has a value and its sub-addresses as
children. So the client reads HOST_INFO and every node it can model (sub-addresses, /stop,
/ping …) through its own API, and what it cannot (the root, the parameters) is reported as its
own error, with the raw JSON fetched by `requests` (the client's HTTP library) beside it.
"""
import argparse
import json
import socket
import sys
import threading

import requests
from pythonoscquery.osc_query_client import OSCQueryClient
from zeroconf import ServiceInfo


def service_by_hand(host, port):
    return ServiceInfo("_oscjson._tcp.local.", "paramd-test._oscjson._tcp.local.",
                       addresses=[socket.inet_aton(host)], port=port)


def service_by_browsing(seconds):
    from pythonoscquery.osc_query_browser import OSCQueryBrowser
    browser = OSCQueryBrowser()
    # Zeroconf's callback (add_service, on its own thread) says when a service has been found.
    found = threading.Event()
    listener, added = browser.listener, browser.listener.add_service

    def add_service(zc, type_, name):
        added(zc, type_, name)
        if listener.oscjson_services:
            found.set()
    listener.add_service = add_service
    if browser.get_discovered_oscquery():  # found before the callback was in place
        found.set()
    found.wait(seconds)
    return browser, browser.get_discovered_oscquery()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--browse", type=float, default=0)
    parser.add_argument("--token", help="sent as a bearer (paramd beyond loopback, SPEC §16)")
    args = parser.parse_args()
    if args.token:
        # python-oscquery has no way to add a header: every request it makes goes through
        # requests' Session.request, which gets the bearer here.
        plain = requests.Session.request

        def with_token(self, method, url, **kwargs):
            headers = dict(kwargs.pop("headers", None) or {})
            headers["Authorization"] = f"Bearer {args.token}"
            return plain(self, method, url, headers=headers, **kwargs)

        requests.Session.request = with_token
    result = {}
    if args.browse:
        browser, found = service_by_browsing(args.browse)
        result["discovered"] = [{"name": s.name, "port": s.port,
                                 "addresses": [socket.inet_ntoa(a) for a in s.addresses if len(a) == 4]} for s in found]
        if not found:
            print(json.dumps(result))
            return 0
        service = next((s for s in found if s.port == args.port), found[0])
        # The browser hands over every address the host announced, loopback included, in no
        # fixed order (zeroconf 0.154 put 127.0.0.1 first in about half the runs), and
        # python-oscquery's client asks only the first. paramd listens on the address it was
        # bound to: put that one first when the browser found it.
        wanted = socket.inet_aton(args.host)
        if wanted in service.addresses and service.addresses[0] != wanted:
            service = ServiceInfo(service.type, service.name, port=service.port, server=service.server,
                                  properties=service.properties,
                                  addresses=[wanted] + [a for a in service.addresses if a != wanted])
    else:
        service = service_by_hand(args.host, args.port)
    client = OSCQueryClient(service)
    info = client.get_host_info()
    result["host_info"] = {"name": info.name, "osc_port": info.osc_port, "osc_transport": info.osc_transport,
                           "osc_ip": info.osc_ip, "extensions": info.extensions}
    root = requests.get(f"http://{args.host}:{args.port}/").json()
    result["root_keys"] = sorted(root.get("CONTENTS", {}).keys())

    def walk(node):
        yield node
        for child in node.get("CONTENTS", {}).values():
            yield from walk(child)

    nodes = {}
    for raw in walk(root):
        path = raw["FULL_PATH"]
        try:
            node = client.query_node(path)
            nodes[path] = {"read_by": "python-oscquery", "full_path": node.full_path, "access": int(node.access),
                           "value": node.value, "description": node.description}
        except ValueError as e:
            nodes[path] = {"read_by": "requests", "client_error": str(e), "raw": raw if path != "/" else {"FULL_PATH": "/"}}
    result["nodes"] = nodes
    result["missing"] = client.query_node("/no/such/node") is None
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
