import sys
sys.modules["wall29_small"].STEPS = 6
