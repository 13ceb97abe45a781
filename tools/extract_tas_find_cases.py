"""Transcribe the data rows of Kueue's ``TestFindTopologyAssignments`` into JSON.

Usage (kubernetes-sigs/kueue at v0.19.2)::

    git --git-dir=<kueue mirror> show v0.19.2:pkg/cache/scheduler/tas_cache_test.go > t.go
    python tools/extract_tas_find_cases.py t.go tests/controllers/kueue/data/tas_find_cases.json

Rows whose nodes, requests or expectations are built in code are listed under ``skipped`` with why.
"""

import json
import re
import sys

with open(sys.argv[1]) as f:
    src = f.read()
CONST = {
    "tasDataCenterLabel": "cloud.com/datacenter",
    "tasAIZoneLabel": "cloud.com/aizone",
    "tasBlockLabel": "cloud.com/topology-block",
    "tasRackLabel": "cloud.com/topology-rack",
    "tasSubBlockLabel": "cloud.com/topology-subblock",
    "corev1.LabelHostname": "kubernetes.io/hostname",
}
RES = {
    "corev1.ResourceCPU": "cpu",
    "corev1.ResourceMemory": "memory",
    "corev1.ResourcePods": "pods",
    "gpuResName": "example.com/gpu",
    '"example.com/gpu"': "example.com/gpu",
}


def scan(s, i):
    """(index, char, depth) of each character of Go source ``s`` from ``i`` that is outside string
    literals (interpreted and raw), ``depth`` the bracket nesting before it (``{`` and ``(``)."""
    depth = 0
    j = i
    instr = False
    while j < len(s):
        c = s[j]
        if instr:
            if c == "\\":
                j += 2
                continue
            if c == '"':
                instr = False
        elif c == '"':
            instr = True
        elif c == "`":
            j = s.index("`", j + 1)
        else:
            yield j, c, depth
            if c in "{(":
                depth += 1
            elif c in "})":
                depth -= 1
        j += 1


def match_brace(s, i):
    """index after the brace closing the one at s[i]."""
    for j, c, depth in scan(s, i):
        if c in "})" and depth == 1:
            return j + 1
    raise ValueError


def strval(tok):
    tok = tok.strip()
    m = re.fullmatch(r"string\((.*)\)", tok)
    if m:
        tok = m.group(1).strip()
    if tok.startswith("`"):
        return tok[1:-1]
    if tok.startswith('"'):
        return json.loads(tok)
    if tok in CONST:
        return CONST[tok]
    raise ValueError(tok)


def parse_levels(txt):
    txt = txt.strip()
    if txt in LEVELVARS:
        return LEVELVARS[txt]
    m = re.fullmatch(r"append\(\[\]string\{(.*?)\},\s*(\w+)\.\.\.\)", txt, re.S)
    if m:
        return [strval(t) for t in m.group(1).split(",") if t.strip()] + LEVELVARS[m.group(2)]
    m = re.fullmatch(r"\[\]string\{(.*)\}", txt, re.S)
    if not m:
        raise ValueError("levels " + txt[:40])
    return [strval(t) for t in m.group(1).split(",") if t.strip()]


def parse_nodes(txt):
    txt = txt.strip()
    if txt in NODEVARS:
        return NODEVARS[txt]
    if not txt.startswith("[]corev1.Node{"):
        raise ValueError("nodes " + txt[:40])
    body = txt[len("[]corev1.Node{") : -1]
    out = []
    for chunk in re.split(r"\*testingnode\.MakeNode", body)[1:]:
        name = re.match(r'\("([^"]+)"\)', chunk).group(1)
        labels = {
            strval(k): strval(v)
            for k, v in re.findall(r'\.\s*Label\(\s*([\w.]+|"[^"]*")\s*,\s*("[^"]*"|[\w.]+)\s*\)', chunk)
        }
        alloc = {}
        m = re.search(r"StatusAllocatable\(corev1\.ResourceList\{(.*?)\}\)", chunk, re.S)
        if m:
            for k, v in re.findall(r'([\w.]+|"[^"]*")\s*:\s*resource\.MustParse\("([^"]+)"\)', m.group(1)):
                alloc[RES[k]] = v
        extra = set(re.findall(r"\.\s*(\w+)\(", chunk)) - {
            "Label",
            "StatusAllocatable",
            "Ready",
            "Obj",
            "MustParse",
        }
        if extra:
            raise ValueError(f"node extras {extra}")
        if "Ready()" not in chunk:
            raise ValueError("not ready node")
        out.append({"name": name, "labels": labels, "allocatable": alloc})
    return out


# top-level vars
head = src[src.index("func TestFindTopologyAssignments") : src.index("\tcases := map[string]struct")]
LEVELVARS, NODEVARS = {}, {}
for m in re.finditer(r"\n\t(\w+) := (\[\][\w.]+\{)", head):
    start = m.end() - 1
    end = match_brace(head, start)
    txt = m.group(2)[:-1] + head[start:end]
    try:
        if m.group(2).startswith("[]string"):
            LEVELVARS[m.group(1)] = parse_levels(txt)
        else:
            NODEVARS[m.group(1)] = parse_nodes(txt)
    except Exception as e:
        print("var", m.group(1), e, file=sys.stderr)


def field(body, name):
    m = re.search(r"\n\t*" + name + r":\s*", body)
    if not m:
        return None
    i = m.end()
    # the value runs to the first comma, or closing bracket, at depth 0
    end = next((j for j, c, depth in scan(body, i) if depth == 0 and c in ",})"), len(body))
    return body[i:end].strip()


def ptrval(v):
    m = re.fullmatch(r"(?:new|ptr\.To)(?:\[[\w.]+\])?\((.*)\)", v.strip(), re.S)
    if not m:
        raise ValueError("ptr " + v)
    inner = m.group(1).strip()
    m2 = re.fullmatch(r"int32\((\d+)\)", inner)
    if m2:
        return int(m2.group(1))
    if inner in ("true", "false"):
        return inner == "true"
    if re.fullmatch(r"\d+", inner):
        return int(inner)
    return strval(inner)


def parse_tr(v):
    if v is None or v == "nil":
        return None
    body = v[v.index("{") + 1 : -1]
    out = {}
    for key in (
        "Required",
        "Preferred",
        "Unconstrained",
        "PodSetSliceRequiredTopology",
        "PodSetSliceSize",
        "PodSetGroupName",
    ):
        fv = field("\n" + body, key)
        if fv is not None:
            out[key] = ptrval(fv)
    fv = field("\n" + body, "PodsetSliceRequiredTopologyConstraints")
    if fv is not None:
        out["Constraints"] = [
            {"topology": strval(t), "size": int(s)}
            for t, s in re.findall(r'Topology:\s*([\w.]+|"[^"]*"),\s*Size:\s*(\d+)', fv)
        ]
    extra = (
        set(re.findall(r"\n\t*(\w+):", "\n" + body))
        - set(out)
        - {"PodsetSliceRequiredTopologyConstraints", "Topology", "Size"}
    )
    if extra:
        raise ValueError(f"tr extras {extra}")
    return out


def parse_want(v):
    if v is None or v == "nil":
        return None
    levels = parse_levels(field(v, "Levels"))
    doms = []
    for cnt, vals in re.findall(r"Count:\s*(\d+),\s*Values:\s*\[\]string\{([^}]*)\}", v, re.S):
        doms.append({"values": [strval(t) for t in vals.split(",") if t.strip()], "count": int(cnt)})
    for vals, cnt in re.findall(r"Values:\s*\[\]string\{([^}]*)\},\s*Count:\s*(\d+)", v, re.S):
        doms.append({"values": [strval(t) for t in vals.split(",") if t.strip()], "count": int(cnt)})
    n = len(re.findall(r"Count:", v))
    if n != len(doms):
        raise ValueError("domains unparsed")
    return {"levels": levels, "domains": doms}


def parse_reason(v):
    if v is None:
        return ""
    if v.startswith("`") and v.endswith("`") and v.count("`") == 2:
        return v[1:-1]
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', v)
    if re.sub(r'"((?:[^"\\]|\\.)*)"|\+|\s', "", v):
        raise ValueError("reason " + v)
    return "".join(json.loads('"' + p + '"') for p in parts)


def parse_podsets(v):
    out = []
    body = v[v.index("{") + 1 : -1]
    i = 0
    while True:
        k = body.find("{", i)
        if k < 0:
            break
        e = match_brace(body, k)
        ps = body[k + 1 : e - 1]
        allowed = {
            "podSetName",
            "topologyRequest",
            "requests",
            "count",
            "wantAssignment",
            "wantReason",
            "podSetGroupName",
            "previousAssignment",
        }
        psd = {}
        for kk in (
            "podSetName",
            "topologyRequest",
            "requests",
            "count",
            "wantAssignment",
            "wantReason",
            "podSetGroupName",
            "tolerations",
            "nodeSelector",
            "nodeAffinity",
            "previousAssignment",
        ):
            fv = field("\n" + ps, kk)
            if fv is None:
                continue
            if kk not in allowed:
                raise ValueError("podset field " + kk)
            psd[kk] = fv
        req = {}
        if "requests" in psd:
            for kk, vv in re.findall(r'([\w.]+|"[^"]*")\s*:\s*(\d+)', psd["requests"]):
                req[RES[kk]] = int(vv)
        out.append(
            {
                "name": json.loads(psd.get("podSetName", '""'))
                if psd.get("podSetName", '""').startswith('"')
                else psd["podSetName"],
                "topologyRequest": parse_tr(psd.get("topologyRequest")),
                "requests": req,
                "count": int(psd.get("count", "0")),
                "group": ptrval(psd["podSetGroupName"]) if "podSetGroupName" in psd else None,
                "want": parse_want(psd.get("wantAssignment")),
                "reason": parse_reason(psd.get("wantReason")),
                "previous": parse_want(psd.get("previousAssignment")),
            }
        )
        i = e
    return out


cases_src = src[src.index("\tcases := map[string]struct") : src.index("\tfor name, tc := range cases {")]
cases_src = cases_src[cases_src.index("}{") + 2 :]
result, skipped = {}, {}
for m in re.finditer(r'\n\t\t"((?:[^"\\]|\\.)*)": \{', cases_src):
    name = json.loads('"' + m.group(1) + '"')
    s = m.end() - 1
    e = match_brace(cases_src, s)
    body = cases_src[s + 1 : e - 1]
    try:
        fg = field(body, "featureGates")
        gates = {}
        if fg:
            for g, val in re.findall(r"features\.(\w+):\s*(true|false)", fg):
                gates[g] = val == "true"
        for other in (
            "pods",
            "nodeLabels",
            "aggregatedDomainUsages",
            "priorFlavorUsage",
            "priorOwnUsage",
            "workload",
        ):
            if field(body, other) is not None:
                raise ValueError("case field " + other)
        result[name] = {
            "gates": gates,
            "levels": parse_levels(field(body, "levels")),
            "nodes": parse_nodes(field(body, "nodes")),
            "podSets": parse_podsets(field(body, "podSets")),
        }
    except Exception as ex:
        skipped[name] = str(ex)[:80]
with open(sys.argv[2], "w") as f:
    json.dump({"cases": result, "skipped": skipped}, f, indent=1)
print(len(result), "parsed", len(skipped), "skipped")
