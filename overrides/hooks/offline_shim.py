"""MkDocs hook: the iframe-worker shim only in the offline copy, where search needs it.

Opened from disk (file://), a page cannot start the search worker; the shim runs it in an
iframe instead. Over http it does nothing, yet Material puts it in every page's `<head>` as a
script that stops the parser until it has arrived: one more request before the first paint.
mkdocs.yml lists the local copy, so that the offline plugin does not add unpkg's; this hook
drops it again unless the offline plugin is on (`OFFLINE=true`, the offline copy and the PDF).
"""


def on_config(config):
    offline = config.plugins.get("material/offline")
    if offline is None or not offline.config.enabled:
        polyfills = config.extra.get("polyfills", [])
        config.extra["polyfills"] = [p for p in polyfills if "iframe-worker" not in p]
    return config
