#!/usr/bin/env python3
"""Plain HTTP requests against paramd (Python's http.client, not paramd's code), as a browser
or an attacker's page would send them: each request of a JSON list on the command line, its
status and the headers the test looks at, printed as JSON.

  http_checks.py HOST PORT '[{"method":"GET","path":"/","headers":{"Host":"evil.example"}}, …]'

A request with "websocket": true is an upgrade request (a valid Sec-WebSocket-Key and version),
so that only Host and Origin decide it.
"""
import base64
import http.client
import json
import os
import sys


def main():
    host, port, requests = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    results = []
    for r in requests:
        conn = http.client.HTTPConnection(host, port, timeout=10)
        headers = dict(r.get("headers", {}))
        if r.get("websocket"):
            headers.update({"Upgrade": "websocket", "Connection": "Upgrade",
                            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
                            "Sec-WebSocket-Version": "13"})
        skip_host = "Host" in headers
        conn.putrequest(r.get("method", "GET"), r["path"], skip_host=skip_host, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        body = r.get("body")
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body.encode() if body is not None else None)
        response = conn.getresponse()
        data = b"" if response.status == 101 else response.read()
        results.append({
            "method": r.get("method", "GET"), "path": r["path"], "status": response.status,
            "content_type": response.getheader("Content-Type"), "cache_control": response.getheader("Cache-Control"),
            "allow": response.getheader("Allow"), "length": len(data),
            "body": data.decode("utf-8", "replace")[:200],
        })
        conn.close()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
