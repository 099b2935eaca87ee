#!/usr/bin/env python3
"""browser-check: does every figure of an HTML report render in a real browser?

    python3 scripts/browser-check.py [--timeout SECONDS] DIR/index.html

Opens the page in headless Chromium (Debian's `chromium`; the environment
variable CHROMIUM may name another binary) and checks, in the browser:
  - every <img> finished loading with naturalWidth > 0 and naturalHeight > 0
    (and, where the browser supports it, img.decode() succeeds);
  - every outermost inline <svg> has a non-empty bounding box, and so has
    what it draws (getBBox) -- except an <svg> without class "figure" that
    is display:none on purpose (an icon sprite, a <defs> holder);
  - the number of figures -- all <img> elements plus the <svg> elements with
    class "figure" -- is at least 1 and equals K of the page's
    <meta name="tm-figures" content="K">.
Before checking, lazy images are made eager and closed <details> opened, so
that a figure the reader would have to scroll to or unfold still counts.

How: a copy of the page (next to it, so relative paths resolve; it is removed
afterwards) gets an injected <script> that waits for the window's load event
and every image, then writes its findings (base64 JSON) into the DOM;
`chromium --headless --dump-dom` prints the DOM and the verdict is read back.
The browser runs with a private profile in a temporary directory (removed
afterwards) and is killed, with all its processes, after --timeout seconds.

Output and exit status:
  0  one line on stdout:
     browser-check: PAGE: K figures render (chromium VERSION)
  1  one line per problem on stderr, each "browser-check: PAGE: ...", naming
     the image's src (or the svg) -- a missing or unreadable page, a missing
     or undecodable image, an empty svg, a missing or wrong tm-figures count,
     chromium failing or timing out (its stderr's tail is shown then)
  2  chromium not found ("browser-check: chromium not found (make deps)"),
     or a usage error
"""
import argparse
import base64
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

PROG = "browser-check"

# Waits, in the page, for images still loading after the load event (lazy
# ones made eager, say); in virtual time, so it costs no wall-clock time.
IMAGE_WAIT_MS = 20000
# --virtual-time-budget: how far the page's clock may run before the DOM is
# dumped; more than IMAGE_WAIT_MS so that the verdict is always written.
VIRTUAL_TIME_BUDGET_MS = 30000

CHECK_JS = r"""
(function () {
  "use strict";
  var ID = "__ID__", WAIT_MS = __WAIT__;
  function publish(v) {
    var bytes = new TextEncoder().encode(JSON.stringify(v)), bin = "";
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    var el = document.createElement("div");
    el.id = ID;
    el.hidden = true;
    el.setAttribute("data-verdict", btoa(bin));
    (document.body || document.documentElement).appendChild(el);
  }
  // Figures the reader would scroll to or unfold must load and lay out too.
  function prepare() {
    document.querySelectorAll("img[loading]").forEach(function (im) { im.loading = "eager"; });
    document.querySelectorAll("details:not([open])").forEach(function (d) { d.open = true; });
  }
  document.addEventListener("DOMContentLoaded", prepare);
  function later(ms, v) { return new Promise(function (r) { setTimeout(function () { r(v); }, ms); }); }
  function settled(im) {
    if (im.complete) return Promise.resolve();
    return new Promise(function (r) {
      im.addEventListener("load", r, { once: true });
      im.addEventListener("error", r, { once: true });
    });
  }
  function decodes(im) {
    if (!im.complete || !im.naturalWidth || !im.decode) return Promise.resolve(null);
    return Promise.race([
      im.decode().then(function () { return true; }, function () { return false; }),
      later(WAIT_MS, null)]);
  }
  function svgInfo(s, i) {
    var r = s.getBoundingClientRect(), b = null;
    try { var bb = s.getBBox(); b = [bb.width, bb.height]; } catch (e) { b = null; }
    return { index: i, id: s.id || "", cls: s.getAttribute("class") || "",
             figure: s.classList.contains("figure"),
             hidden: getComputedStyle(s).display === "none",
             w: r.width, h: r.height, bbox: b };
  }
  function check() {
    prepare();
    var imgs = Array.prototype.slice.call(document.images);
    Promise.race([Promise.all(imgs.map(settled)), later(WAIT_MS)])
      .then(function () { return Promise.all(imgs.map(decodes)); })
      .then(function (dec) {
        var svgs = Array.prototype.filter.call(document.querySelectorAll("svg"), function (s) {
          return !(s.parentElement && s.parentElement.closest("svg"));
        });
        var meta = document.querySelector('meta[name="tm-figures"]');
        publish({
          ua: navigator.userAgent,
          declared: meta ? meta.getAttribute("content") : null,
          imgs: imgs.map(function (im, i) {
            return { index: i, src: im.getAttribute("src"), url: im.currentSrc || im.src,
                     complete: im.complete, w: im.naturalWidth, h: im.naturalHeight,
                     decoded: dec[i] };
          }),
          svgs: svgs.map(svgInfo),
          svgFigures: svgs.filter(function (s) { return s.classList.contains("figure"); }).length
        });
      })
      .catch(function (e) { publish({ error: String(e) }); });
  }
  if (document.readyState === "complete") check();
  else window.addEventListener("load", check);
})();
"""

INJECT_AFTER = [re.compile(rb"<head(?:\s[^>]*)?>", re.I),
                re.compile(rb"<html(?:\s[^>]*)?>", re.I),
                re.compile(rb"<!doctype[^>]*>", re.I)]


def inject(page: bytes, snippet: bytes) -> bytes:
    """The page with snippet inserted as early as possible without moving
    the doctype (the copy must render in the same mode as the original)."""
    for pat in INJECT_AFTER:
        m = pat.search(page)
        if m:
            return page[:m.end()] + snippet + page[m.end():]
    return snippet + page


def find_chromium():
    cand = os.environ.get("CHROMIUM")
    if cand:
        return shutil.which(cand)
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_version(chromium, ua):
    """X.Y.Z.W from `chromium --version` (the user agent's is reduced to
    X.0.0.0), else from the user agent, else "?"."""
    try:
        r = subprocess.run([chromium, "--version"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=10)
        m = re.search(rb"(\d+\.\d+\.\d+\.\d+)", r.stdout)
        if m:
            return m.group(1).decode()
    except (OSError, subprocess.SubprocessError):
        pass
    m = re.search(r"Chrom(?:e|ium)/([0-9.]+)", ua or "")
    return m.group(1) if m else "?"


def kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_chromium(chromium, url, profile, timeout):
    """(exit status or None on timeout, stdout bytes, stderr bytes)."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
           "--disable-extensions", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--mute-audio",
           "--hide-scrollbars", "--window-size=1280,1024",
           "--user-data-dir=" + profile,
           "--virtual-time-budget=%d" % VIRTUAL_TIME_BUDGET_MS,
           "--dump-dom", url]
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = os.path.join(profile, "xdg-config")
    env["XDG_CACHE_HOME"] = os.path.join(profile, "xdg-cache")
    # its own process group, so that a timeout kills the renderers and
    # helpers too, not just the first process
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        status = None
    except BaseException:
        kill_group(proc)
        proc.wait()
        raise
    kill_group(proc)  # any helper left behind
    return status, out, err


def url_to_path(url):
    if not url or not url.startswith("file:"):
        return None
    try:
        return urllib.request.url2pathname(urllib.parse.urlparse(url).path)
    except Exception:
        return None


def image_problem(im):
    """A sentence about a broken <img>, or None."""
    src = im.get("src")
    if src is None:
        name = "<img> #%d without src" % im["index"]
    else:
        name = "image '%s'" % (src if len(src) <= 80 else src[:77] + "...")
    if im.get("complete") and im.get("w", 0) > 0 and im.get("h", 0) > 0:
        if im.get("decoded") is False:
            return "%s does not decode (%dx%d)" % (name, im["w"], im["h"])
        return None
    if src is None or src == "":
        return "%s: nothing to load" % name
    path = url_to_path(im.get("url"))
    if not im.get("complete"):
        return "%s did not finish loading" % name
    if path is not None and not os.path.exists(path):
        return "%s not found (%s)" % (name, path)
    if path is not None and not os.access(path, os.R_OK):
        return "%s not readable (%s)" % (name, path)
    if path is not None:
        return "%s failed to load or decode: not an image? (%s)" % (name, path)
    url = im.get("url") or ""
    return "%s failed to load (%s)" % (name, url if len(url) <= 80 else url[:77] + "...")


def svg_problem(s):
    if s.get("hidden") and not s.get("figure"):
        return None  # display:none on purpose: an icon sprite, a <defs> holder
    name = "inline <svg> #%d" % s["index"]
    if s.get("id"):
        name += " id='%s'" % s["id"]
    elif s.get("cls"):
        name += " class='%s'" % s["cls"]
    if not (s.get("w", 0) > 0 and s.get("h", 0) > 0):
        return "%s has an empty bounding box (%gx%g)" % (name, s.get("w", 0), s.get("h", 0))
    bb = s.get("bbox")
    if bb is None or not (bb[0] > 0 or bb[1] > 0):
        return "%s draws nothing (empty content bounding box)" % name
    return None


def judge(verdict):
    """(problems, number of figures)."""
    problems = []
    if "error" in verdict:
        return ["the check script failed in the page: %s" % verdict["error"]], 0
    for im in verdict.get("imgs", []):
        p = image_problem(im)
        if p:
            problems.append(p)
    for s in verdict.get("svgs", []):
        p = svg_problem(s)
        if p:
            problems.append(p)
    count = len(verdict.get("imgs", [])) + verdict.get("svgFigures", 0)
    declared = verdict.get("declared")
    if count == 0:
        problems.append("no figures (no <img>, no <svg class=\"figure\">)")
    if declared is None:
        problems.append('no <meta name="tm-figures" content="K"> (the browser counts %d)' % count)
    else:
        try:
            k = int(declared.strip())
        except ValueError:
            k = None
        if k is None:
            problems.append('<meta name="tm-figures"> content %r is not a number' % declared)
        elif k != count:
            problems.append("tm-figures says %d figures, the browser counts %d "
                            "(<img>: %d, <svg class=\"figure\">: %d)"
                            % (k, count, len(verdict.get("imgs", [])), verdict.get("svgFigures", 0)))
    return problems, count


def main():
    ap = argparse.ArgumentParser(prog=PROG, description="Checks that every figure of an "
                                 "HTML report renders in headless Chromium.")
    ap.add_argument("page", help="the report, e.g. DIR/index.html")
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds before chromium is killed (default 60)")
    args = ap.parse_args()
    page = args.page

    def say(msg):
        print("%s: %s: %s" % (PROG, page, msg), file=sys.stderr)

    chromium = find_chromium()
    if chromium is None:
        print("%s: chromium not found (make deps)" % PROG, file=sys.stderr)
        return 2
    try:
        data = Path(page).read_bytes()
    except OSError as e:
        say("cannot open: %s" % (e.strerror or e))
        return 1

    # cleanup also on SIGTERM/SIGHUP (Ctrl-C is KeyboardInterrupt already)
    def on_signal(signum, frame):
        raise SystemExit(128 + signum)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    token = "tm-browser-check-" + secrets.token_hex(8)
    script = CHECK_JS.replace("__ID__", token).replace("__WAIT__", str(IMAGE_WAIT_MS))
    snippet = b"<script>" + script.encode() + b"</script>"
    pagedir = os.path.dirname(os.path.abspath(page))
    workdir = tempfile.mkdtemp(prefix="tm-browser-check.")
    copy = None
    try:
        try:  # next to the page, so that relative paths resolve as in the page
            fd, copy = tempfile.mkstemp(prefix=".browser-check-", suffix=".html", dir=pagedir)
        except OSError:  # a read-only directory: a copy elsewhere, with a <base>
            fd, copy = tempfile.mkstemp(suffix=".html", dir=workdir)
            base = Path(pagedir).as_uri() + "/"
            snippet = b'<base href="' + base.encode() + b'">' + snippet
        with os.fdopen(fd, "wb") as f:
            f.write(inject(data, snippet))
        profile = os.path.join(workdir, "profile")
        os.mkdir(profile)
        status, out, err = run_chromium(chromium, Path(copy).as_uri(), profile, args.timeout)
    finally:
        if copy is not None:
            try:
                os.unlink(copy)
            except OSError:
                pass
        shutil.rmtree(workdir, ignore_errors=True)

    def stderr_tail():  # without the usual noise: no D-Bus in a container
        lines = [ln for ln in err.decode(errors="replace").splitlines()
                 if ln.strip() and "dbus" not in ln and "unexpected operator" not in ln]
        for line in lines[-15:]:
            print("    " + line, file=sys.stderr)

    if status is None:
        say("chromium (%s) timed out after %g s" % (chromium, args.timeout))
        stderr_tail()
        return 1
    m = re.search(rb'id="' + token.encode() + rb'"[^>]*?data-verdict="([A-Za-z0-9+/=]*)"', out)
    if status != 0 or not m:
        say("chromium (%s) exited %d without a verdict from the page" % (chromium, status)
            if m is None else "chromium (%s) exited %d" % (chromium, status))
        stderr_tail()
        return 1
    try:
        verdict = json.loads(base64.b64decode(m.group(1)).decode())
    except (ValueError, UnicodeDecodeError) as e:
        say("unreadable verdict from the page: %s" % e)
        return 1
    problems, count = judge(verdict)
    for p in problems:
        say(p)
    if problems:
        return 1
    print("%s: %s: %d figure%s render (chromium %s)"
          % (PROG, page, count, "" if count == 1 else "s",
             chromium_version(chromium, verdict.get("ua"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
