#!/usr/bin/python3
"""A client of the run monitor (docs/MONITORING.md) for the integration
tests: one request from this process, or from inside another host's network
namespace (the script runs itself there with `ip netns exec`), the token
given or read from a token file, as a Prometheus server on another node
reads its credentials_file; and a reader of one value of a Prometheus text.

  monitor_client.py METHOD URL [--token-file F] [--body JSON]
      one request, printed as `STATUS` then the body."""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import urllib.error
import urllib.request


def http(method, url, token=None, body=None, timeout=5):
    """One request; returns (status, text). HTTP errors are answers too."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = None
    if body is not None:
        data = body.encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main(argv):
    """One request; exit 0 with `STATUS\\nBODY`, 1 when unreachable."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("method")
    p.add_argument("url")
    p.add_argument("--token-file")
    p.add_argument("--body")
    a = p.parse_args(argv)
    token = pathlib.Path(a.token_file).read_text().strip() if a.token_file else None
    try:
        status, text = http(a.method, a.url, token, a.body)
    except OSError as e:
        print(f"unreachable: {e}")
        sys.exit(1)
    print(status)
    print(text, end="")


class Client:
    """Requests to the monitor: from this process (loopback), or from inside
    another host's namespace by running this script there."""

    def __init__(self, base, token=None, netns=None, token_file=None):
        self.base, self.token, self.netns, self.token_file = base, token, netns, token_file

    def request(self, method, path, body=None, auth=True):
        url = self.base + path
        if not self.netns:
            try:
                return http(method, url, self.token if auth else None, body)
            except OSError as e:
                return None, str(e)
        cmd = ["ip", "netns", "exec", self.netns, sys.executable, os.path.abspath(__file__),
               method, url]
        if auth:
            cmd += ["--token-file", self.token_file]
        if body is not None:
            cmd += ["--body", body]
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=15)
        except subprocess.TimeoutExpired:
            return None, "no answer within 15 s"
        if r.returncode != 0:
            return None, r.stdout.strip()
        status, _, text = r.stdout.partition("\n")
        return int(status), text


def metric(text, name):
    """The value of the first series of family `name` in a Prometheus text."""
    for line in text.splitlines():
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$", line)
        if m and m.group(1) == name:
            return float(m.group(3))
    return None


if __name__ == "__main__":
    main(sys.argv[1:])
