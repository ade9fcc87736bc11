"""This board's wiring and timing; the only firmware file a builder should need to edit.

Pin names are those of CircuitPython's ``board`` module on the Raspberry Pi Pico
("GP0" ... "GP28", "LED").  The defaults match the companion's example config
reference-2-pico.toml: a 12 x 13 diode matrix (156 sensors) and 152 NeoPixels.
"""

# -- sensors -------------------------------------------------------------------------
#: "matrix" (keypad.KeyMatrix over a diode matrix) or "shift_register" (74HC165 chain).
SCANNER = "matrix"

# Diode matrix: sensor index = row * len(COLUMN_PINS) + column.
ROW_PINS = ("GP0", "GP1", "GP2", "GP3", "GP4", "GP5", "GP6", "GP7", "GP8", "GP9", "GP10", "GP11")
COLUMN_PINS = (
    "GP12",
    "GP13",
    "GP14",
    "GP15",
    "GP16",
    "GP17",
    "GP18",
    "GP19",
    "GP20",
    "GP21",
    "GP22",
    "GP26",
    "GP27",
)
#: Every column wire needs an external 10 kohm (4.7-10 kohm) pull-up to 3V3(OUT): the
#: scan reads the columns about 1 us after driving a row, too soon for the RP2040's
#: internal 50-80 kohm pull-ups, and a closed switch would also read on the next row.
#: True when each diode's anode is on the column wire (its stripe towards the row).
COLUMNS_TO_ANODES = True

# 74HC165 chain (SCANNER = "shift_register"): sensor index = bit position in the chain,
# the first bit shifted out being sensor 0.
CLOCK_PIN = "GP2"  # CP (pin 2) of every chip
DATA_PIN = "GP3"  # QH (pin 9) of the last chip in the chain
LATCH_PIN = "GP4"  # SH/LD (pin 1) of every chip
KEY_COUNT = 160  # 8 per chip: 20 chips cover 156 sensors
VALUE_WHEN_PRESSED = False  # switches pull the input low, with pull-up resistors
VALUE_TO_LATCH = True  # the 74HC165 loads while SH/LD is low and shifts once it is high

#: Seconds between scans, and scans a change must last before it counts.
SCAN_INTERVAL = 0.02
DEBOUNCE_THRESHOLD = 2
#: Key events held between loop passes; more and the firmware starts over (a SNAPSHOT).
#: Must be more than the sensors that can be pressed at once (figures on the board).
MAX_EVENTS = 64

# -- NeoPixels -----------------------------------------------------------------------
PIXEL_PIN = "GP28"
PIXEL_COUNT = 152
PIXEL_ORDER = "GRB"  # the strip's byte order; the wire protocol always carries RGB
# Brightness and the LED supply's current limit are the host's alone ([leds] in the
# companion's config): the strip shows exactly the values the host sends.

#: The play jumper: a spare matrix crossing (sensor index) whose switch is a 2-pin jumper
#: with its own 1N4148, like every crossing.  boot.py reads it at power-up and hides the
#: CIRCUITPY drive while it is closed.  155 = row 11 (GP11) x column 12 (GP27), a crossing
#: the example config leaves spare; the companion ignores it during play.  The strip's
#: data line (PIXEL_PIN) is never touched before the NeoPixel driver starts: a 10 kOhm
#: pull-down from GP28 to GND holds it low until then.  None: no jumper.
PLAY_JUMPER = 155

#: The Pico's own LED: steady while a host talks to the board, blinking while it waits.
STATUS_LED_PIN = "LED"

# -- link ----------------------------------------------------------------------------
SNAPSHOT_MS = 2000  # a full SNAPSHOT this often, whatever happens
HEARTBEAT_MS = 500
HOST_TIMEOUT_MS = 3000  # no frame from the host for this long: show the "host lost" pulse
SETTLE_MS = 100  # after a start or a key-queue overflow, scans before the first SNAPSHOT
#: "Host lost": every LOST_PIXEL_STEP-th pixel pulses dim red (LOST_LEVEL of 255).
LOST_PIXEL_STEP = 12
LOST_LEVEL = 48
