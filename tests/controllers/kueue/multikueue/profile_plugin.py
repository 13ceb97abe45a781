"""A client-go credential plugin for the tests, run as a real subprocess (like the e2e tests'
``secretreader``): it reads ``KUBERNETES_EXEC_INFO`` and answers the token named by the cluster's
``client.authentication.k8s.io/exec`` extension (``{"token": ...}``), or fails with exit code 3 when
the extension says ``{"fail": true}``. With ``PLUGIN_LOG`` set, each run appends its input there."""

import json
import os
import sys

info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
if os.environ.get("PLUGIN_LOG"):
    with open(os.environ["PLUGIN_LOG"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps(info, sort_keys=True) + "\n")
config = (info["spec"].get("cluster") or {}).get("config") or {}
if config.get("fail"):
    sys.exit(3)
status = {"token": config.get("token", "")} if config.get("token") else {}
print(json.dumps({"apiVersion": info["apiVersion"], "kind": "ExecCredential", "status": status}))
