"""Pyodide in Debian's Chromium, driven by Playwright 1.64.1 (ADR 0034, ADR 0105).

``launch_persistent_context`` with ``executable_path`` set to Debian's ``chromium``; no
connection beyond loopback: ``--host-resolver-rules`` maps every host but 127.0.0.1 to
NOTFOUND and the features that reach the network on their own are off.
"""

from __future__ import annotations

from typing import Any

from skidpad.parity.runtimes.playwright_page import PlaywrightRuntime

#: Features that reach the network on their own (ADR 0105), plus every feature Playwright
#: 1.64.1 disables itself: one ``--disable-features`` list, so it does not matter whether
#: Chromium keeps the last such switch or merges them.
CHROMIUM_DISABLED_FEATURES = (
    "MediaRouter",
    "DialMediaRouteProvider",
    "GlobalMediaControls",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AutofillServerCommunication",
    "Translate",
    "AimEnabled",
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "LensOverlay",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "BlockOriginHeaderModificationOnRedirect",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "AutoDeElevate",
)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--disable-quic",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--disable-features=" + ",".join(CHROMIUM_DISABLED_FEATURES),
]


class ChromiumRuntime(PlaywrightRuntime):
    """Debian's Chromium, headless, one persistent context."""

    name = "chromium"
    package = "chromium"

    @classmethod
    def launch_options(cls) -> dict[str, Any]:
        return {"args": CHROMIUM_ARGS}
