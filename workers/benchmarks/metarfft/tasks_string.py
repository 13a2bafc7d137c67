"""Symbolic / string manipulation and logic tasks (Meta-RFFT families 3-4)."""

from __future__ import annotations

from workers.benchmarks.metarfft.task import LETTERS, Task, rand_bits, rand_word, register_task


class _MapTask(Task):
    """A task whose rule maps each character independently: out += g(c)."""

    def g(self, x, c: str) -> str:
        raise NotImplementedError

    def text(self, x) -> str:
        return x["s"]

    def run_rule(self, x):
        steps = [f"{c}:{self.g(x, c)}" for c in self.text(x)]
        return steps, "".join(s.split(":", 1)[1] for s in steps)

    def sample(self, n, rng):
        return {"s": rand_word(rng, n)}


@register_task
class ReverseString(Task):
    name, family = "reverse_string", "string"
    rule = "for i from n-1 to 0:out+=s[i]"

    def sample(self, n, rng):
        return {"s": rand_word(rng, n)}

    def prompt(self, x):
        return f"rev{x['s']}"

    def run_rule(self, x):
        steps = [f"{i}:{x['s'][i]}" for i in range(len(x["s"]) - 1, -1, -1)]
        return steps, "".join(s.split(":")[1] for s in steps)

    def reference(self, x):
        return x["s"][::-1]


@register_task
class DuplicateChars(_MapTask):
    name, family = "duplicate_chars", "string"
    rule = "for c in s:out+=c+c"

    def g(self, x, c):
        return c + c

    def prompt(self, x):
        return f"dup{x['s']}"

    def reference(self, x):
        return "".join(c * 2 for c in x["s"])


@register_task
class Caesar(_MapTask):
    name, family = "caesar", "string"
    rule = "alphabet=abcdefgh;for c in s:out+=alphabet[(index(c)+1)%8]"

    def g(self, x, c):
        return LETTERS[(LETTERS.index(c) + 1) % len(LETTERS)]

    def prompt(self, x):
        return f"shift{x['s']}"

    def reference(self, x):
        return x["s"].translate(str.maketrans(LETTERS, LETTERS[1:] + LETTERS[0]))


@register_task
class RemoveChar(_MapTask):
    name, family = "remove_char", "string"
    rule = "for x in s:if x!=c:out+=x"

    def sample(self, n, rng):
        return {"s": rand_word(rng, n), "c": LETTERS[rng.integers(len(LETTERS))]}

    def g(self, x, c):
        return "" if c == x["c"] else c

    def prompt(self, x):
        return f"{x['s']}-{x['c']}"

    def reference(self, x):
        return x["s"].replace(x["c"], "")


@register_task
class SwapPairs(Task):
    name, family = "swap_pairs", "string"
    rule = "for i in 0,2,4..:out+=s[i+1]+s[i] (last odd char kept)"

    def sample(self, n, rng):
        return {"s": rand_word(rng, n)}

    def prompt(self, x):
        return f"swap{x['s']}"

    def run_rule(self, x):
        s, steps, out = x["s"], [], ""
        for i in range(0, len(s), 2):
            pair = s[i : i + 2]
            steps.append(f"{pair}:{pair[::-1]}")
            out += pair[::-1]
        return steps, out

    def reference(self, x):
        s = list(x["s"])
        s[0 : len(s) - len(s) % 2 : 2], s[1::2] = s[1::2], s[0 : len(s) - len(s) % 2 : 2]
        return "".join(s)


@register_task
class CountChar(Task):
    name, family = "count_char", "string"
    rule = "k=0;for x in s:if x==c:k+=1"

    def sample(self, n, rng):
        return {"s": rand_word(rng, n), "c": LETTERS[rng.integers(len(LETTERS))]}

    def prompt(self, x):
        return f"{x['s']}#{x['c']}"

    def run_rule(self, x):
        k, steps = 0, []
        for ch in x["s"]:
            k += ch == x["c"]
            steps.append(f"{ch}:{k}")
        return steps, str(k)

    def reference(self, x):
        return str(x["s"].count(x["c"]))


@register_task
class Dedupe(Task):
    name, family = "dedupe", "string"
    rule = "p=none;for x in s:if x!=p:out+=x;p=x"

    def sample(self, n, rng):
        return {"s": rand_word(rng, n, LETTERS[:3])}  # small alphabet: runs are common

    def prompt(self, x):
        return f"uniq{x['s']}"

    def run_rule(self, x):
        p, out, steps = "", "", []
        for ch in x["s"]:
            keep = ch != p
            steps.append(f"{ch}{'+' if keep else '-'}")
            out += ch if keep else ""
            p = ch
        return steps, out

    def reference(self, x):
        import itertools

        return "".join(k for k, _ in itertools.groupby(x["s"]))


@register_task
class Interleave(Task):
    name, family = "interleave", "string"
    rule = "for i in 0..n-1:out+=a[i]+b[i]"

    def sample(self, n, rng):
        return {"a": rand_word(rng, n), "b": rand_word(rng, n)}

    def prompt(self, x):
        return f"{x['a']}|{x['b']}"

    def run_rule(self, x):
        steps = [f"{p}{q}" for p, q in zip(x["a"], x["b"], strict=False)]
        return steps, "".join(steps)

    def reference(self, x):
        return "".join(p + q for p, q in zip(x["a"], x["b"], strict=False))


@register_task
class Parity(Task):
    name, family = "parity", "logic"
    rule = "p=0;for b in s:p=p xor b"

    def sample(self, n, rng):
        return {"s": rand_bits(rng, n)}

    def prompt(self, x):
        return f"par{x['s']}"

    def run_rule(self, x):
        p, steps = 0, []
        for b in x["s"]:
            steps.append(f"{p}^{b}={p ^ int(b)}")
            p ^= int(b)
        return steps, str(p)

    def reference(self, x):
        return str(x["s"].count("1") % 2)


class _BitwiseTask(Task):
    op = ""

    def f(self, p: int, q: int) -> int:
        raise NotImplementedError

    def sample(self, n, rng):
        return {"a": rand_bits(rng, n), "b": rand_bits(rng, n)}

    def prompt(self, x):
        return f"{x['a']}{self.op}{x['b']}"

    def run_rule(self, x):
        steps = [
            f"{p}{self.op}{q}={self.f(int(p), int(q))}"
            for p, q in zip(x["a"], x["b"], strict=False)
        ]
        return steps, "".join(s[-1] for s in steps)


@register_task
class BitAnd(_BitwiseTask):
    name, family, op = "bit_and", "logic", "&"
    rule = "for i in 0..n-1:out+=a[i] and b[i]"

    def f(self, p, q):
        return p & q

    def reference(self, x):
        n = len(x["a"])
        return format(int(x["a"], 2) & int(x["b"], 2), f"0{n}b")


@register_task
class BitXor(_BitwiseTask):
    name, family, op = "bit_xor", "logic", "^"
    rule = "for i in 0..n-1:out+=a[i] xor b[i]"

    def f(self, p, q):
        return p ^ q

    def reference(self, x):
        n = len(x["a"])
        return format(int(x["a"], 2) ^ int(x["b"], 2), f"0{n}b")


@register_task
class Majority(Task):
    name, family = "majority", "logic"
    rule = "k=0;for b in s:k+=1 if b==1 else -1;return 1 if k>0 else 0"

    def sample(self, n, rng):
        return {"s": rand_bits(rng, n)}

    def prompt(self, x):
        return f"maj{x['s']}"

    def run_rule(self, x):
        k, steps = 0, []
        for b in x["s"]:
            k += 1 if b == "1" else -1
            steps.append(f"{b}:{k}")
        return steps, "1" if k > 0 else "0"

    def reference(self, x):
        return "1" if 2 * x["s"].count("1") > len(x["s"]) else "0"
