"""The ``companion`` command."""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import socket
import sys
import time
import urllib.parse
from collections.abc import Sequence
from pathlib import Path

from companion.board.config import ConfigError, load_config
from companion.board.selftest import FAULT_POSITION, FAULTS, run_selftest
from companion.errors import StartupError
from companion.games.mummy.maze_file import MazeError, check_maze
from companion.games.mummy.record import replay
from companion.games.mummy.simulate import MUMMIES, Summary, simulate, win_table
from companion.games.mummy.state import Options
from companion.games.mummy.views import table_view
from companion.games.records import RecordError
from companion.hardware.magnets import add_parser as add_hardware_parser
from companion.hardware.parts import add_command as add_parts_command
from companion.hardware.pcb import add_command as add_pcb_command
from companion.hardware.section import add_command as add_section_command
from companion.hardware.tile_spacer import add_command as add_spacer_command
from companion.inputs import PORT, Number, given_path, read_text
from companion.mazes import load_maze
from companion.pi.firmware_install import add_parser as add_firmware_parser

#: The numeric options' ranges (nan, inf and anything outside: exit 2, naming the option).
GAMES = Number(1, 1_000_000, integer=True)
SEEKERS = Number(1, 4, integer=True)
SEED = Number(0, 2**32 - 1, integer=True)
SECONDS = Number(0, 3600, unit="s")

#: A value argparse would take for an option of its own ("-inf", "-1e400", "-nan").
_DASHED_NUMBER = re.compile(r"^-(inf(inity)?|nan|\d|\.\d)", re.IGNORECASE)


def _number_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option of ``parser`` and its subcommands that takes a ``Number``."""
    found: set[str] = set()
    for action in parser._actions:
        if isinstance(action.type, Number):
            found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _number_options(sub)
    return found


def _numbers_joined(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``--seconds -inf`` as ``--seconds=-inf``: argparse takes a value that starts with
    a dash for an option ("expected one argument"); the number's own check then says
    what is wrong with it."""
    numbers = _number_options(parser)
    out: list[str] = []
    for word in argv:
        if out and out[-1] in numbers and _DASHED_NUMBER.match(word):
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    given = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(_numbers_joined(parser, given))
    if not hasattr(args, "func"):
        parser.print_help()
        return 2
    try:
        code: int = args.func(args)
    except MazeError as exc:
        for problem in exc.problems:
            print(f"maze: {problem}", file=sys.stderr)
        return 1
    except ConfigError as exc:
        for p in exc.problems:
            print(f"{exc.source}:{p.line}: {p.key}: {p.message}", file=sys.stderr)
        return 1
    except StartupError as exc:
        print(f"companion: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # "companion: FILE: No such file or directory"
        where = f"{exc.filename}: " if exc.filename and exc.strerror else ""
        print(f"companion: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as exc:
        print(f"companion: not a UTF-8 text file ({exc.reason})", file=sys.stderr)
        return 1
    return code


def companion_url(text: str) -> str:
    """An argparse ``type``: the address of a running companion, http://host[:port]."""
    parts = urllib.parse.urlsplit(text.strip())
    try:
        parts.port  # noqa: B018 (a port out of range raises)
    except ValueError:
        parts = urllib.parse.urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise argparse.ArgumentTypeError(
            f"must be the companion's address, like http://127.0.0.1:8080, not {shown!r}"
        )
    return text.strip()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=__doc__)
    sub = parser.add_subparsers(title="commands")

    maze = sub.add_parser("maze", help="maze files").add_subparsers(title="maze commands")
    check = maze.add_parser("check", help="validate a maze file and name every problem")
    check.add_argument("file", type=given_path)
    check.set_defaults(func=_maze_check)
    render = maze.add_parser(
        "render", help="printable sheet at true scale (SVG, or PDF on A3/A4 pages)"
    )
    render.add_argument(
        "--maze", type=given_path, default=None, help="maze file (default: built in)"
    )
    render.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    render.add_argument(
        "--sheet", choices=("maze", "crypt", "track"), default="maze", help="default: maze"
    )
    render.add_argument("--assembly", action="store_true", help="mark sensors and LEDs")
    render.add_argument("--page", choices=("a3", "a4", "a2"), default="a3", help="PDF paper")
    render.add_argument(
        "--out", type=given_path, action="append", required=True, help="FILE.svg or FILE.pdf"
    )
    render.set_defaults(func=_maze_render)

    rep = sub.add_parser("replay", help="replay a game record (JSON Lines)")
    rep.add_argument("log", type=given_path)
    rep.add_argument("--json", action="store_true", help="print the final table view as JSON")
    rep.set_defaults(func=_replay)

    sim = sub.add_parser("simulate", help="play complete games between automatic players")
    sim.add_argument("--games", type=GAMES, default=100)
    sim.add_argument(
        "--seekers",
        type=SEEKERS,
        nargs="+",
        default=[4],
        help="seeker counts (several: a table of win rates, e.g. --seekers 1 2 3 4)",
    )
    sim.add_argument("--seed", type=SEED, default=0)
    sim.add_argument("--maze", type=given_path, default=None, help="maze file (default: built in)")
    sim.add_argument("--exact", action="store_true", help="the mummy must use all its steps")
    sim.add_argument(
        "--mummy",
        nargs="+",
        choices=(*MUMMIES, "all"),
        default=["bot"],
        help="the mummy against the seeker bots: the computer mummy's levels, the "
        "self-play bot, or the omniscient reference (default: bot); several, or all, "
        "print their win rates side by side",
    )
    sim.add_argument("--json", action="store_true")
    sim.add_argument(
        "--journal",
        type=given_path,
        default=None,
        help="write the games into this journal (with names beside it) for the replays and "
        "the statistics, taking --seekers and --mummy in turn (bot, easy, normal, hard)",
    )
    sim.set_defaults(func=_simulate)

    selftest = sub.add_parser("selftest", help="check every LED and sensor of the board")
    selftest.add_argument("--mock", action="store_true", help="run against the simulated board")
    selftest.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    selftest.add_argument(
        "--inject-fault",
        nargs="?",
        const="dead",
        default=None,
        choices=FAULTS,
        help=f"with --mock: break the simulated board under {FAULT_POSITION} (default: dead)",
    )
    selftest.add_argument(
        "--seconds", type=SECONDS, default=300.0, help="time to place figures by hand (default 300)"
    )
    selftest.set_defaults(func=_selftest)

    wiring = sub.add_parser("wiring", help="wiring tables and power budget of a board config")
    wiring.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    wiring.add_argument("--markdown", action="store_true", help="Markdown, as in hardware/")
    wiring.add_argument("--diagram", type=given_path, default=None, help="also write FILE.svg")
    wiring.set_defaults(func=_wiring)

    run = sub.add_parser("run", help="start the companion (board, journal, web server)")
    run.add_argument("--mock", action="store_true", help="no hardware: a simulated board")
    run.add_argument("--config", type=given_path, default=None, help="board config (TOML)")
    run.add_argument("--maze", type=given_path, default=None, help="maze file (default: built in)")
    run.add_argument(
        "--host", type=_host, default="0.0.0.0", help="address to listen on (default 0.0.0.0)"
    )
    run.add_argument("--port", type=PORT, default=8080, help="port (default 8080; 0: any free)")
    run.add_argument("--state-dir", type=given_path, default=None, help="journal and secret key")
    run.set_defaults(func=_run)

    remote = sub.add_parser("remote", help="open the mummy's or a watching seat to the internet")
    remote.add_argument("--seat", choices=["mummy", "watch"], default="mummy")
    remote.add_argument("--provider", choices=["cloudflare", "tailscale"], default="cloudflare")
    remote.add_argument(
        "--grace", type=SECONDS, default=30.0, help="seconds before a dropped player shows offline"
    )
    remote.add_argument("--close", action="store_true", help="close the remote seat")
    remote.add_argument(
        "--url",
        type=companion_url,
        default="http://127.0.0.1:8080",
        help="the running companion (default port 8080)",
    )
    remote.add_argument("--state-dir", type=given_path, default=None, help="journal and secret key")
    remote.set_defaults(func=_remote)

    bench = sub.add_parser("bench", help="measure the performance figures")
    bench.add_argument("--json", action="store_true", help="one JSON object of figures")
    bench.add_argument("--quick", action="store_true", help="fewer samples (for tests)")
    bench.add_argument("--only", nargs="*", default=None, help="sections to run")
    bench.set_defaults(func=_bench)

    i18n = sub.add_parser("i18n", help="the German and English catalogs").add_subparsers(
        title="i18n commands"
    )
    update = i18n.add_parser("update", help="merge every message of the code into the catalogs")
    update.set_defaults(func=_i18n_update)
    i18n_check = i18n.add_parser("check", help="list the messages without a translation")
    i18n_check.set_defaults(func=_i18n_check)

    spot = sub.add_parser("hotspot", help="the Pi as the table's Wi-Fi access point (as root)")
    spot.add_argument("--name", help="the network name phones see")
    spot.add_argument("--password", help="8 to 63 characters")
    spot.add_argument("--ifname", default="wlan0", help="the Wi-Fi interface (default wlan0)")
    spot.add_argument("--now", action="store_true", help="bring it up now (drops other Wi-Fi)")
    spot.add_argument("--remove", action="store_true", help="delete the hotspot")
    spot.add_argument("--config-dir", type=given_path, default=Path("/etc/pyramid-companion"))
    spot.set_defaults(func=_hotspot)

    inst = sub.add_parser(
        "install-service", help="what `sudo ./install.sh` does: the service on a Pi (as root)"
    )
    inst.add_argument("--dry-run", action="store_true", help="only say what would be done")
    inst.set_defaults(func=_install_service)
    add_firmware_parser(sub)  # companion firmware install|check
    hardware = add_hardware_parser(sub)  # companion hardware magnets|parts|section|pcb|spacer
    add_parts_command(hardware)
    add_section_command(hardware)
    add_pcb_command(hardware)
    add_spacer_command(hardware)
    return parser


def _host(text: str) -> str:
    """An address this machine can listen on: an IP address or a name it resolves."""
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        if not text or all(part.isdigit() for part in text.split(".")):
            raise argparse.ArgumentTypeError(f"{text!r} is not an IP address") from None
    try:
        socket.getaddrinfo(text, None)
    except (OSError, UnicodeError):
        raise argparse.ArgumentTypeError(f"{text!r} is no address of this machine") from None
    return text


def _maze_check(args: argparse.Namespace) -> int:
    problems = check_maze(read_text(args.file))
    for problem in problems:
        where = f"{args.file}:{problem.line}" if problem.line else str(args.file)
        print(f"{where}: {problem.message}")
    if problems:
        print(f"{len(problems)} problem(s) in {args.file}", file=sys.stderr)
        return 1
    print(f"{args.file}: the maze is good")
    return 0


def _maze_render(args: argparse.Namespace) -> int:
    from companion.hardware.build import sheet_bytes
    from companion.hardware.crypt_overlay import crypt_sheet
    from companion.hardware.sheets import maze_sheet
    from companion.hardware.track_legend import track_sheet

    kinds = [out.suffix.lower().lstrip(".") for out in args.out]
    bad = [
        str(out) for out, kind in zip(args.out, kinds, strict=True) if kind not in ("svg", "pdf")
    ]
    if bad:
        print(f"companion: --out must end in .svg or .pdf: {', '.join(bad)}", file=sys.stderr)
        return 2
    config = load_config(args.config)
    try:
        if args.sheet == "crypt":
            drawing = crypt_sheet(config, assembly=args.assembly)
        elif args.sheet == "track":
            drawing = track_sheet(config, assembly=args.assembly)
        else:
            drawing = maze_sheet(load_maze(args.maze)[0], config, assembly=args.assembly)
    except ValueError as exc:  # SheetError: the maze and the board differ in size
        print(f"companion: {exc}", file=sys.stderr)
        return 1
    for out, kind in zip(args.out, kinds, strict=True):
        out.write_bytes(sheet_bytes(drawing, kind, args.page))
        print(f"wrote {out} ({drawing.width:g} x {drawing.height:g} mm)")
    return 0


def _wiring(args: argparse.Namespace) -> int:
    from companion.hardware.build import sheet_bytes
    from companion.hardware.diagram import wiring_diagram
    from companion.hardware.wiring import to_markdown, to_text, wiring_page

    config = load_config(args.config)
    sections = wiring_page(config)
    if args.markdown:
        print(to_markdown(config, sections, config.source), end="")
    else:
        print(to_text(config, sections), end="")
    if args.diagram is not None:
        try:
            drawing = wiring_diagram(config)
        except ValueError as exc:  # no diagram for this sensor backend
            print(f"companion: {exc}", file=sys.stderr)
            return 1
        args.diagram.write_bytes(sheet_bytes(drawing, "svg"))
    return 0


def _replay(args: argparse.Namespace) -> int:
    try:
        result = replay(read_text(args.log))
    except RecordError as exc:
        print(f"{args.log}:{exc.line}: {exc.message}", file=sys.stderr)
        return 1
    view = table_view(result.state)
    if args.json:
        print(json.dumps(view, indent=2))
        return 0
    state = result.state
    maze = state.maze
    print(f"{len(result.commands)} commands replayed; round {state.rounds + 1}")
    print(f"phase: {view['phase']}")
    print(f"mummy on {maze.cell_name(state.mummy)} with {state.mummy_ankhs} ankhs")
    for f, colour in enumerate(state.setup.figures):
        node = state.positions[f]
        where = "out" if node < 0 else maze.cell_name(node)
        seeker = state.setup.figure_owner[f]
        print(
            f"{colour.value}: {where}, {state.ankhs[seeker]} ankhs, "
            f"{len(state.played[seeker])} cards played, {len(state.hands[seeker])} left"
        )
    if state.winner is not None:
        who = (
            "the mummy"
            if state.winner.seeker is None
            else "/".join(c.value for c in state.setup.seekers[state.winner.seeker])
        )
        print(f"winner: {who} ({state.winner.reason})")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    maze, maze_text = load_maze(args.maze)
    options = Options(mummy_moves_exactly=args.exact)
    if args.journal is not None:
        from companion.service.simulated_journal import TABLE, write_games

        wanted = tuple(m for m in (TABLE if "all" in args.mummy else args.mummy) if m in TABLE)
        if not wanted:
            print(f"--journal takes the mummies {', '.join(TABLE)}", file=sys.stderr)
            return 2
        ids = write_games(
            args.journal,
            maze,
            maze_text,
            games=args.games,
            seekers=tuple(dict.fromkeys(args.seekers)),
            mummies=wanted,
            seed=args.seed,
            options=options,
        )
        print(f"{len(ids)} games written to {args.journal} (games {ids[0]} to {ids[-1]})")
        return 0
    mummies = MUMMIES if "all" in args.mummy else tuple(dict.fromkeys(args.mummy))
    seekers = tuple(dict.fromkeys(args.seekers))
    cells: dict[tuple[int, str], Summary] = {}
    started = time.perf_counter()
    for k in seekers:
        for mummy in mummies:
            summary, elapsed = simulate(
                maze, k, args.games, seed=args.seed, mummy=mummy, options=options
            )
            cells[k, mummy] = summary
            if args.json:
                print(json.dumps(_simulation_json(mummy, summary, elapsed)), flush=True)
            elif len(seekers) * len(mummies) == 1:
                _print_simulation(args, maze.name, mummy, summary, elapsed)
            else:
                rate = summary.mummy_rate()[0]
                print(
                    f"{k} seeker(s), {mummy}: {100 * rate:.1f}% in {elapsed:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
    if not args.json and len(cells) > 1:
        last = args.seed + args.games - 1
        print(
            f"mummy win rate (95% interval), {args.games} games per cell, "
            f"maze {maze.name!r}, seeds {args.seed}-{last}, "
            f"{time.perf_counter() - started:.0f} s"
        )
        print("\n".join(win_table(cells, seekers, mummies)))
    return 0


def _simulation_json(mummy: str, summary: Summary, elapsed: float) -> dict[str, object]:
    rate, low, high = summary.mummy_rate()
    return {
        "mummy": mummy,
        "games": summary.games,
        "seekers": summary.seekers,
        "mummy_wins": summary.mummy_wins,
        "mummy_win_rate": round(rate, 4),
        "mummy_win_rate_95": [round(low, 4), round(high, 4)],
        "seeker_wins": summary.seeker_wins,
        "unfinished": summary.unfinished,
        "mean_rounds": round(summary.mean_rounds, 2),
        "mean_commands": round(summary.mean_commands, 1),
        "games_per_s": round(summary.games / elapsed, 1),
        "seconds": round(elapsed, 3),
    }


def _print_simulation(
    args: argparse.Namespace, maze: str, mummy: str, summary: Summary, elapsed: float
) -> None:
    rate, low, high = summary.mummy_rate()
    n = summary.games
    print(f"{n} games, {summary.seekers} seeker(s), maze {maze!r}, seeds {args.seed}..")
    print(
        f"mummy ({mummy}) won {summary.mummy_wins} ({100 * rate:.1f}%, "
        f"95% CI {100 * low:.1f}-{100 * high:.1f}%)"
    )
    print(f"seekers won {summary.seeker_wins} ({100 * summary.seeker_wins / n:.0f}%)")
    if summary.unfinished:
        print(f"unfinished: {summary.unfinished}")
    print(f"mean length {summary.mean_rounds:.1f} rounds, {summary.mean_commands:.0f} commands")
    print(f"{round(n / elapsed, 1)} games/s ({elapsed:.2f} s)")


def _selftest(args: argparse.Namespace) -> int:
    if args.inject_fault and not args.mock:
        print("companion: --inject-fault needs --mock", file=sys.stderr)
        return 2
    config = load_config(args.config)
    try:
        report = run_selftest(
            config, mock=args.mock, inject_fault=args.inject_fault or False, seconds=args.seconds
        )
    except ValueError as exc:  # a fault this board cannot have
        print(f"companion: {exc}", file=sys.stderr)
        return 2
    return 0 if report.ok else 1


def _bench(args: argparse.Namespace) -> int:
    from companion.bench.run import SECTIONS, report, run_bench

    unknown = set(args.only or ()) - set(SECTIONS)
    if unknown:
        print(f"companion: --only: unknown sections {sorted(unknown)}; one of {list(SECTIONS)}")
        return 2
    figures = run_bench(args.quick, args.only)
    if args.json:
        print(json.dumps({f.key: f.as_json() for f in figures}, indent=2))
    else:
        print(report(figures))
    return 0


def _hotspot(args: argparse.Namespace) -> int:
    from companion.pi import hotspot

    try:
        if args.remove:
            done = hotspot.remove(args.config_dir)
        elif not args.name or not args.password:
            print("companion hotspot: give --name and --password (or --remove)", file=sys.stderr)
            return 2
        else:
            done = hotspot.create(
                args.name, args.password, ifname=args.ifname, config_dir=args.config_dir,
                now=args.now,
            )  # fmt: skip
    except hotspot.HotspotError as exc:
        print(f"companion hotspot: {exc}", file=sys.stderr)
        return 1
    for line in done:
        print(line)
    return 0


def _install_service(args: argparse.Namespace) -> int:
    from companion.pi.install import main

    return main(["--dry-run"] if args.dry_run else [])


def _remote(args: argparse.Namespace) -> int:
    from companion.service.startup import state_dir
    from companion.web.remote_cli import main

    return main(
        base=args.url,
        directory=state_dir(args.state_dir),
        seat=args.seat,
        provider=args.provider,
        grace_s=args.grace,
        close=args.close,
    )


def _run(args: argparse.Namespace) -> int:
    from companion.runner import run

    return run(
        config_path=args.config,
        maze_path=args.maze,
        mock=args.mock,
        host=args.host,
        port=args.port,
        state=args.state_dir,
    )


def _i18n_update(args: argparse.Namespace) -> int:
    from companion.i18n.sources import update

    missing = update()
    for lang, ids in sorted(missing.items()):
        print(f"{lang}: {len(ids)} to translate")
        for text in ids:
            print(f"  {text}")
    return 0


def _i18n_check(args: argparse.Namespace) -> int:
    from companion.i18n.sources import check

    missing = check()
    for lang, ids in sorted(missing.items()):
        for text in ids:
            print(f"{lang}: no translation: {text}")
    return 1 if missing else 0
