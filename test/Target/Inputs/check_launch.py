"""Reads an `axe-translate --emit=launch` record with json.load and evaluates it at concrete problem sizes.

usage: check_launch.py RECORD KERNEL NAME=VALUE... -- EXPECTED_JSON

Every expression (grid, tensor-map dims and strides, the kernel's preconditions, which include every map's) is
evaluated with the given parameter values by a small evaluator of the documented grammar (integers, names, + - * /
%, ceildiv, comparisons); a pointer parameter not given is 256 (a cudaMalloc'd address is 256-byte aligned). The
result is compared with EXPECTED_JSON, which the test states independently: {"grid": [...], "maps": {"A": {"dims":
[...], "strides": [...]}}, "preconditions": true|false}. Prints "ok" or the first difference and exits 1.
"""
import ast
import json
import operator
import sys

OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: operator.mod}
CMP = {ast.Eq: operator.eq, ast.Lt: operator.lt, ast.LtE: operator.le, ast.GtE: operator.ge, ast.Gt: operator.gt}


def evaluate(text, env):
    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in OPS:
            return OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            a, b = ev(node.left), ev(node.right)
            if a % b:
                raise ValueError(f"inexact division in {text}")
            return a // b
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "ceildiv":
            a, b = (ev(x) for x in node.args)
            return -(-a // b)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return CMP[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
        raise ValueError(f"unsupported expression {text}")

    return ev(ast.parse(text, mode="eval"))


def main():
    args = sys.argv[1:]
    split = args.index("--")
    record, kernel_name, values = args[0], args[1], args[2:split]
    expected = json.loads(args[split + 1])
    env = {k: int(v) for k, v in (item.split("=") for item in values)}
    with open(record) as f:
        data = json.load(f)
    kernel = next(k for k in data["kernels"] if k["name"] == kernel_name)
    for param in kernel["params"]:
        if param["kind"] == "pointer":
            env.setdefault(param["name"], 256)
    # The kernel's list holds every map's too.
    for m in kernel["tensor_maps"]:
        assert all(p in kernel["preconditions"] for p in m["preconditions"]), m["param"]
    got = {
        "grid": [evaluate(g, env) for g in kernel["grid"]],
        "maps": {
            m["param"]: {
                "dims": [evaluate(d, env) for d in m["global_dims"]],
                "strides": [evaluate(s, env) for s in m["global_strides_bytes"]],
            }
            for m in kernel["tensor_maps"]
        },
        "preconditions": all(evaluate(p, env) for p in kernel["preconditions"]),
    }
    for key, want in expected.items():
        if got[key] != want:
            print(f"{key}: expected {want}, got {got[key]}")
            sys.exit(1)
    print("ok")


main()
