"""The board firmware (CircuitPython for the Pico), one copy: the host imports protocol.py and
firmware.py, and ``companion firmware install`` copies these files to CIRCUITPY."""
