"""Arithmetic and number-processing tasks (Meta-RFFT families 1-2)."""

from __future__ import annotations

from workers.benchmarks.metarfft.task import (
    Task,
    rand_bits,
    rand_digits,
    rand_number,
    register_task,
)


def _strip(s: str) -> str:
    return s.lstrip("0") or "0"


@register_task
class Add(Task):
    name, family = "add", "arithmetic"
    rule = "c=0;for i from last:s=a[i]+b[i]+c;out=s%10+out;c=s//10;end:if c:out=c+out"

    def sample(self, n, rng):
        return {"a": rand_number(rng, n), "b": rand_number(rng, n)}

    def prompt(self, x):
        return f"{x['a']}+{x['b']}"

    def run_rule(self, x):
        a, b = x["a"], x["b"]
        c, out, steps = 0, "", []
        for i in range(len(a) - 1, -1, -1):
            s = int(a[i]) + int(b[i]) + c
            steps.append(f"{a[i]}+{b[i]}+{c}={s}")
            out, c = str(s % 10) + out, s // 10
        return steps, (str(c) if c else "") + out

    def reference(self, x):
        return str(int(x["a"]) + int(x["b"]))


@register_task
class Sub(Task):
    name, family = "sub", "arithmetic"
    rule = "a>=b;r=0;for i from last:d=a[i]-b[i]-r;r=1 if d<0;out=d%10+out;strip zeros"

    def sample(self, n, rng):
        a, b = sorted([rand_number(rng, n), rand_number(rng, n)], key=int)
        return {"a": b, "b": a}

    def prompt(self, x):
        return f"{x['a']}-{x['b']}"

    def run_rule(self, x):
        a, b = x["a"], x["b"]
        r, out, steps = 0, "", []
        for i in range(len(a) - 1, -1, -1):
            d = int(a[i]) - int(b[i]) - r
            steps.append(f"{a[i]}-{b[i]}-{r}={d}")
            out, r = str(d % 10) + out, int(d < 0)
        return steps, _strip(out)

    def reference(self, x):
        return str(int(x["a"]) - int(x["b"]))


@register_task
class MulDigit(Task):
    name, family = "mul_digit", "arithmetic"
    rule = "c=0;for i from last:s=a[i]*d+c;out=s%10+out;c=s//10;end:if c:out=c+out"

    def sample(self, n, rng):
        return {"a": rand_number(rng, n), "d": str(rng.integers(1, 10))}

    def prompt(self, x):
        return f"{x['a']}*{x['d']}"

    def run_rule(self, x):
        a, d = x["a"], int(x["d"])
        c, out, steps = 0, "", []
        for i in range(len(a) - 1, -1, -1):
            s = int(a[i]) * d + c
            steps.append(f"{a[i]}*{d}+{c}={s}")
            out, c = str(s % 10) + out, s // 10
        return steps, _strip((str(c) if c else "") + out)

    def reference(self, x):
        return str(int(x["a"]) * int(x["d"]))


@register_task
class Increment(Task):
    name, family = "increment", "arithmetic"
    rule = "c=1;for i from last:s=a[i]+c;out=s%10+out;c=s//10;end:if c:out=c+out"

    def sample(self, n, rng):
        return {"a": rand_number(rng, n)}

    def prompt(self, x):
        return f"{x['a']}+1"

    def run_rule(self, x):
        c, out, steps = 1, "", []
        for ch in reversed(x["a"]):
            s = int(ch) + c
            steps.append(f"{ch}+{c}={s}")
            out, c = str(s % 10) + out, s // 10
        return steps, (str(c) if c else "") + out

    def reference(self, x):
        return str(int(x["a"]) + 1)


@register_task
class Halve(Task):
    name, family = "halve", "arithmetic"
    rule = "r=0;for i from first:v=r*10+a[i];out+=v//2;r=v%2;strip zeros"

    def sample(self, n, rng):
        return {"a": rand_number(rng, n)}

    def prompt(self, x):
        return f"{x['a']}/2"

    def run_rule(self, x):
        r, out, steps = 0, "", []
        for ch in x["a"]:
            v = r * 10 + int(ch)
            steps.append(f"{r}{ch}/2={v // 2}r{v % 2}")
            out, r = out + str(v // 2), v % 2
        return steps, _strip(out)

    def reference(self, x):
        return str(int(x["a"]) // 2)


@register_task
class DigitSum(Task):
    name, family = "digit_sum", "arithmetic"
    rule = "acc=0;for d in a:acc=acc+d"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n)}

    def prompt(self, x):
        return f"sum{x['a']}"

    def run_rule(self, x):
        acc, steps = 0, []
        for ch in x["a"]:
            steps.append(f"{acc}+{ch}={acc + int(ch)}")
            acc += int(ch)
        return steps, str(acc)

    def reference(self, x):
        return str(sum(int(c) for c in x["a"]))


@register_task
class Mod7(Task):
    name, family = "mod7", "arithmetic"
    rule = "r=0;for d in a:r=(r*10+d)%7"

    def sample(self, n, rng):
        return {"a": rand_number(rng, n)}

    def prompt(self, x):
        return f"{x['a']}%7"

    def run_rule(self, x):
        r, steps = 0, []
        for ch in x["a"]:
            nr = (r * 10 + int(ch)) % 7
            steps.append(f"{r}{ch}%7={nr}")
            r = nr
        return steps, str(r)

    def reference(self, x):
        return str(int(x["a"]) % 7)


@register_task
class Compare(Task):
    name, family = "compare", "arithmetic"
    rule = "for i from first:if a[i]!=b[i]:return G if a[i]>b[i] else L;return E"

    def sample(self, n, rng):
        a = rand_number(rng, n)
        b = a if rng.random() < 0.2 else rand_number(rng, n)
        return {"a": a, "b": b}

    def prompt(self, x):
        return f"{x['a']}?{x['b']}"

    def run_rule(self, x):
        steps = []
        for p, q in zip(x["a"], x["b"], strict=False):
            steps.append(f"{p}{q}")
            if p != q:
                return steps, "G" if p > q else "L"
        return steps, "E"

    def reference(self, x):
        a, b = int(x["a"]), int(x["b"])
        return "G" if a > b else "L" if a < b else "E"


@register_task
class ReverseNumber(Task):
    name, family = "reverse_number", "number"
    rule = "for i from last to first:out+=a[i]"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n)}

    def prompt(self, x):
        return f"rev{x['a']}"

    def run_rule(self, x):
        steps = [f"{i}:{x['a'][i]}" for i in range(len(x["a"]) - 1, -1, -1)]
        return steps, "".join(s.split(":")[1] for s in steps)

    def reference(self, x):
        return x["a"][::-1]


@register_task
class CountDigit(Task):
    name, family = "count_digit", "number"
    rule = "c=0;for x in a:if x==d:c+=1"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n), "d": str(rng.integers(0, 10))}

    def prompt(self, x):
        return f"{x['a']}#{x['d']}"

    def run_rule(self, x):
        c, steps = 0, []
        for ch in x["a"]:
            c += ch == x["d"]
            steps.append(f"{ch}:{c}")
        return steps, str(c)

    def reference(self, x):
        return str(x["a"].count(x["d"]))


@register_task
class MaxDigit(Task):
    name, family = "max_digit", "number"
    rule = "m=0;for x in a:m=max(m,x)"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n)}

    def prompt(self, x):
        return f"max{x['a']}"

    def run_rule(self, x):
        m, steps = 0, []
        for ch in x["a"]:
            m = max(m, int(ch))
            steps.append(f"{ch}:{m}")
        return steps, str(m)

    def reference(self, x):
        return max(x["a"])


@register_task
class SortDigits(Task):
    name, family = "sort_digits", "number"
    rule = "for v in 0..9:k=count(a,v);out+=v*k"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n)}

    def prompt(self, x):
        return f"sort{x['a']}"

    def run_rule(self, x):
        out, steps = "", []
        for v in "0123456789":
            k = sum(ch == v for ch in x["a"])
            if k:  # digits that do not occur add no step: the trace grows with the input only
                steps.append(f"{v}x{k}")
            out += v * k
        return steps, out

    def reference(self, x):
        return "".join(sorted(x["a"]))


@register_task
class BinToDec(Task):
    name, family = "bin_to_dec", "number"
    rule = "acc=0;for b in s:acc=acc*2+b"

    def sample(self, n, rng):
        return {"s": "1" + rand_bits(rng, n - 1)}

    def prompt(self, x):
        return f"bin{x['s']}"

    def run_rule(self, x):
        acc, steps = 0, []
        for b in x["s"]:
            steps.append(f"{acc}*2+{b}={acc * 2 + int(b)}")
            acc = acc * 2 + int(b)
        return steps, str(acc)

    def reference(self, x):
        return str(int(x["s"], 2))


@register_task
class OddCount(Task):
    name, family = "odd_count", "number"
    rule = "c=0;for x in a:if x%2==1:c+=1"

    def sample(self, n, rng):
        return {"a": rand_digits(rng, n)}

    def prompt(self, x):
        return f"odd{x['a']}"

    def run_rule(self, x):
        c, steps = 0, []
        for ch in x["a"]:
            c += int(ch) % 2
            steps.append(f"{ch}:{c}")
        return steps, str(c)

    def reference(self, x):
        return str(sum(int(ch) % 2 for ch in x["a"]))
