"""TEMPORARY stand-in until the strict trigonometric functions land: libm, NOT deterministic."""
import math

sin = math.sin
cos = math.cos
tan = math.tan
asin = math.asin
acos = math.acos
atan = math.atan
atan2 = math.atan2
