"""Code-execution tasks (Meta-RFFT family 5): simulate a small program on an input list."""

from __future__ import annotations

from workers.benchmarks.metarfft.task import Task, rand_digits, register_task


@register_task
class RunningSum(Task):
    name, family = "running_sum", "code"
    rule = "acc=0;for x in l:acc+=x;out.append(acc)"

    def sample(self, n, rng):
        return {"l": rand_digits(rng, n)}

    def prompt(self, x):
        return "cum" + ",".join(x["l"])

    def run_rule(self, x):
        acc, steps = 0, []
        for ch in x["l"]:
            steps.append(f"{acc}+{ch}={acc + int(ch)}")
            acc += int(ch)
        return steps, ",".join(s.split("=")[1] for s in steps)

    def reference(self, x):
        import itertools

        return ",".join(str(v) for v in itertools.accumulate(int(c) for c in x["l"]))


@register_task
class CountGreater(Task):
    name, family = "count_greater", "code"
    rule = "k=0;for x in l:if x>t:k+=1"

    def sample(self, n, rng):
        return {"l": rand_digits(rng, n), "t": str(rng.integers(0, 9))}

    def prompt(self, x):
        return ",".join(x["l"]) + "|" + x["t"]

    def run_rule(self, x):
        k, steps = 0, []
        for ch in x["l"]:
            k += int(ch) > int(x["t"])
            steps.append(f"{ch}:{k}")
        return steps, str(k)

    def reference(self, x):
        return str(sum(int(c) > int(x["t"]) for c in x["l"]))


@register_task
class StackSim(Task):
    name, family = "stack", "code"
    rule = "st=[];for op in p:if op=='-':st.pop() else st.append(op);return st or e"

    def sample(self, n, rng):
        ops, depth = [], 0
        for _ in range(n):
            if depth > 0 and rng.random() < 0.4:
                ops.append("-")
                depth -= 1
            else:
                ops.append(str(rng.integers(0, 10)))
                depth += 1
        return {"p": "".join(ops)}

    def prompt(self, x):
        return "stk" + x["p"]

    def run_rule(self, x):
        st, steps = [], []
        for op in x["p"]:
            if op == "-":
                st.pop()
            else:
                st.append(op)
            steps.append(f"{op}:{''.join(st) or 'e'}")
        return steps, "".join(st) or "e"

    def reference(self, x):
        st: list[str] = []
        for op in x["p"]:
            _ = st.pop() if op == "-" else st.append(op)
        return "".join(st) or "e"


@register_task
class LoopUpdate(Task):
    name, family = "loop_update", "code"
    rule = "x=a;repeat n:x=(x*k+1)%10"

    def sample(self, n, rng):
        return {"a": int(rng.integers(0, 10)), "k": int(rng.integers(2, 10)), "n": n}

    def prompt(self, x):
        return f"x{x['a']}k{x['k']}n{x['n']}"

    def run_rule(self, x):
        v, steps = x["a"], []
        for _ in range(x["n"]):
            nv = (v * x["k"] + 1) % 10
            steps.append(f"{v}*{x['k']}+1={nv}")
            v = nv
        return steps, str(v)

    def reference(self, x):
        v = x["a"]
        for _ in range(x["n"]):
            v = (v * x["k"] + 1) % 10
        return str(v)


@register_task
class Counter(Task):
    name, family = "counter", "code"
    rule = "c=0;for op in p:c+=1 if op==i else -1"

    def sample(self, n, rng):
        return {"p": "".join("id"[b] for b in rng.integers(0, 2, size=n))}

    def prompt(self, x):
        return "ctr" + x["p"]

    def run_rule(self, x):
        c, steps = 0, []
        for op in x["p"]:
            c += 1 if op == "i" else -1
            steps.append(f"{op}:{c}")
        return steps, str(c)

    def reference(self, x):
        return str(x["p"].count("i") - x["p"].count("d"))


@register_task
class ListMax(Task):
    name, family = "list_max_index", "code"
    rule = "b=0;for i in 1..n-1:if l[i]>l[b]:b=i;return b"

    def sample(self, n, rng):
        return {"l": rand_digits(rng, n)}

    def prompt(self, x):
        return "argmax" + ",".join(x["l"])

    def run_rule(self, x):
        b, steps = 0, []
        for i in range(1, len(x["l"])):
            if x["l"][i] > x["l"][b]:
                b = i
            steps.append(f"{i}:{b}")
        return steps, str(b)

    def reference(self, x):
        vals = [int(c) for c in x["l"]]
        return str(vals.index(max(vals)))
