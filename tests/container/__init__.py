# Tests that build and run the function image (marker `container`; see engine.py).
