"""TEMPORARY stand-in until the strict exp/log family lands: libm, NOT deterministic."""
import math

exp = math.exp
expm1 = math.expm1
log = math.log
log1p = math.log1p
pow = math.pow
sinh = math.sinh
cosh = math.cosh
tanh = math.tanh
hypot = math.hypot


def cbrt(x):
    return math.copysign(abs(x) ** (1.0 / 3.0), x)
