"""Pyodide in Debian's Firefox ESR, driven by Playwright 1.64.1 over WebDriver BiDi (ADR 0034).

``channel="moz-firefox"`` with ``executable_path`` set to ``firefox-esr`` (153; Playwright
1.65 sends a BiDi command that ESR lacks). No connection beyond loopback:
``MOZ_DISABLE_NONLOCAL_CONNECTIONS``, a dummy remote-settings server and a dead loopback
proxy (ADR 0106).
"""

from __future__ import annotations

import os
from typing import Any

from skidpad.parity.runtimes.page import DEAD_PORT, LOOPBACK
from skidpad.parity.runtimes.playwright_page import PlaywrightRuntime

FIREFOX_ENV = {
    "MOZ_DISABLE_NONLOCAL_CONNECTIONS": "1",
    "MOZ_REMOTE_SETTINGS_DEVTOOLS": "1",
    "MOZ_CRASHREPORTER_DISABLE": "1",
}

FIREFOX_PREFS: dict[str, Any] = {
    # without a local remote-settings server Firefox looks up Mozilla's at start
    "services.settings.server": "data:,#remote-settings-dummy/v1",
    # everything that is not loopback goes to a dead loopback proxy
    "network.proxy.type": 1,
    "network.proxy.http": LOOPBACK,
    "network.proxy.http_port": DEAD_PORT,
    "network.proxy.ssl": LOOPBACK,
    "network.proxy.ssl_port": DEAD_PORT,
    # no SOCKS proxy: with one, Firefox refuses to resolve "localhost" itself, its BiDi
    # server then announces ws://localhost:PORT and Playwright's driver looks that name up
    # in DNS (ADR 0106); connections that are neither HTTP nor TLS stay refused by
    # MOZ_DISABLE_NONLOCAL_CONNECTIONS
    # DNS over HTTPS off for good (5), not merely off by default (0)
    "network.trr.mode": 5,
    "network.proxy.allow_hijacking_localhost": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "app.update.enabled": False,
    "app.update.auto": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.enabled": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    # a request keeps the page's thread busy for minutes: no slow-script stop
    "dom.max_script_run_time": 0,
    "dom.max_chrome_script_run_time": 0,
}


class FirefoxRuntime(PlaywrightRuntime):
    """Debian's Firefox ESR, headless, one persistent context."""

    name = "firefox"
    package = "firefox-esr"

    @classmethod
    def launch_options(cls) -> dict[str, Any]:
        return {
            "channel": "moz-firefox",
            "env": {**os.environ, **FIREFOX_ENV},
            "firefox_user_prefs": FIREFOX_PREFS,
        }
