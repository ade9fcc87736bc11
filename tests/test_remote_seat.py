"""Opening a seat to the internet: the provider's own client is started when installed
(a stand-in program on ``PATH`` here: the real ones are not in the package registries),
the host learns how to install it when it is not, the host page shows the address and
whether the player is connected, and the tunnel closes with Close, the game's end, or
the seat taken back at the table; ``companion remote`` does the same from a shell."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from companion.tunnel.providers import PROVIDERS
from companion.web import remote as remote_module
from tests.seating import join
from tests.test_pages import KEY, wait_until

ADDRESS = "https://quiet-fox-table.trycloudflare.com"


def fake_client(folder: Path, name: str = "cloudflared") -> Path:
    """A program that prints what the provider's client prints, and stays (as it does)."""
    folder.mkdir(exist_ok=True)
    program = folder / name
    program.write_text(
        "#!/bin/sh\n"
        f'echo "$@" > "{folder}/args"\n'
        'echo "INF Requesting new quick Tunnel on trycloudflare.com..." >&2\n'
        f'echo "INF |  {ADDRESS}  |" >&2\n'
        "exec sleep 300\n"
    )
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return program


@pytest.fixture
def opened(table, tmp_path):
    table.new_game(["red", "blue"])
    remote = table.app.extensions["companion.remote"]
    remote.port = 45678
    folder = tmp_path / "bin"
    fake_client(folder)
    remote.which = lambda name: shutil.which(name, path=str(folder))
    yield table, remote, folder
    remote.close()


def test_the_host_opens_a_seat_and_sees_the_address_and_who_is_connected(opened):
    table, remote, folder = opened
    res = table.host.post("/api/host/remote", json={"seat": "mummy", "provider": "cloudflare"})
    assert res.status_code == 200, res.json
    wait_until(lambda: table.host.get("/api/host/remote").json["link"])
    status = table.host.get("/api/host/remote").json
    assert status["link"].startswith(ADDRESS + "/r/") and status["open"]
    assert not status["connected"] and "Cloudflare terminates TLS" in status["sees"]
    assert (folder / "args").read_text().split() == [
        "tunnel", "--no-autoupdate", "--url", "http://127.0.0.1:45678"
    ]  # fmt: skip
    page = table.host.get("/host").get_data(as_text=True)
    assert "Remote seat open" in page and "Cloudflare terminates TLS" in page
    assert "second Wi-Fi adapter" in page
    # Only the host: no seat may open or see it.
    mummy = table.device("mummy")
    assert mummy.get("/api/host/remote").status_code == 403
    assert mummy.post("/api/host/remote/close", json={}).status_code == 403
    client = remote.current.client
    assert table.host.post("/api/host/remote/close", json={}).json == {"open": False, "standin": ""}
    assert client.proc.poll() is not None  # the provider's client ended: the tunnel is down


def test_a_missing_client_is_named_with_how_to_install_it(opened):
    table, _remote, _folder = opened
    res = table.host.post("/api/host/remote", json={"seat": "watch", "provider": "tailscale"})
    assert res.status_code == 409
    assert "tailscale is not installed" in res.json["error"]
    assert "never downloads" in res.json["error"] and not res.json["open"]
    assert PROVIDERS["cloudflare"].install.startswith("cloudflared is not installed")


def test_the_tunnel_closes_when_the_seat_is_taken_back_at_the_table(opened):
    from tests.test_remote_doors import Far

    table, remote, _ = opened
    table.host.post("/api/host/remote", json={"seat": "mummy", "provider": "cloudflare"})
    wait_until(lambda: remote.current.public_url)
    far = Far(table)
    assert far.open(f"/r/{remote.current.token}").status_code == 303
    assert table.host.get("/api/host/remote").json["open"]
    join(table.app.test_client(), table.codes["mummy"])  # the mummy sits at the table again
    assert table.host.get("/api/host/remote").json == {"open": False, "standin": ""}


def test_the_tunnel_closes_after_the_games_end(opened, monkeypatch):
    table, remote, _ = opened
    monkeypatch.setattr(remote_module, "END_LINGER_S", 0.2)
    table.host.post("/api/host/remote", json={"seat": "watch", "provider": "cloudflare"})
    remote.game_over(False)
    assert remote.current is not None
    remote.game_over(True)  # (what the service's publish of an ended game calls)
    wait_until(lambda: remote.current is None)


def test_companion_remote_opens_the_seat_from_a_shell(opened, tmp_path, capsys):
    from companion.service.webthread import ServerThread
    from companion.web.remote_cli import main

    table, remote, _ = opened
    state = Path(str(table.service.journal.path)).parent
    (state / "secret_key").write_bytes(KEY)
    with ServerThread(table.app) as web:
        code = main(
            base=web.url, directory=state, seat="mummy", provider="cloudflare",
            grace_s=60, close=False,
        )  # fmt: skip
        out = capsys.readouterr().out
        assert code == 0, out
        assert f"send this address: {ADDRESS}/r/" in out and "terminates TLS" in out
        assert remote.current is not None and remote.current.grace_s == 60
        assert main(
            base=web.url, directory=state, seat="mummy", provider="cloudflare",
            grace_s=60, close=True,
        ) == 0  # fmt: skip
        assert remote.current is None
        remote.which = lambda name: None
        assert main(
            base=web.url, directory=state, seat="mummy", provider="cloudflare",
            grace_s=60, close=False,
        ) == 1  # fmt: skip
        assert "cloudflared is not installed" in capsys.readouterr().out


@pytest.mark.skipif(
    shutil.which("cloudflared") is None,
    reason="cloudflared is not installed: no package registry this project installs from "
    "carries it (the npm cloudflared and PyPI pycloudflared wrappers fetch Cloudflare's "
    "binary from GitHub), and a quick tunnel needs the internet",
)
def test_a_real_cloudflared_opens_the_seat(table):  # pragma: no cover - needs the internet
    table.new_game(["red", "blue"])
    remote = table.app.extensions["companion.remote"]
    remote.port = 45679
    try:
        res = table.host.post("/api/host/remote", json={"seat": "mummy", "provider": "cloudflare"})
        assert res.status_code == 200, res.json
        wait_until(lambda: remote.current.public_url, timeout=60)
        assert remote.current.public_url.endswith(".trycloudflare.com")
    finally:
        remote.close()
