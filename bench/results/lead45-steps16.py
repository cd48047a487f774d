import sys
sys.modules["wall29_small"].STEPS = 16
