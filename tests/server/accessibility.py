"""Accessibility checks run inside a real page: WCAG 2 text contrast, names for every
control, and a keyboard walk that must reach every control with a visible focus ring.

The checks read what Chromium computed (colours after the cascade, layout, focus order),
so they judge the page as a reader meets it, not the stylesheet as written.
"""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver

CONTRAST = r"""
const rgba = (text) => {
  const m = /rgba?\(([^)]+)\)/.exec(text || "");
  if (!m) return null;
  const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
};
const over = (top, under) => under.map((v, k) => top[k] * top[3] + v * (1 - top[3]));
const backdrop = (el) => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255]);
};
const luminance = (c) => {
  const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const ratio = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};
const failures = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode;
  const el = node.parentElement;
  if (!node.textContent.trim() || !el) continue;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  if (style.visibility === "hidden" || box.width === 0 || box.height === 0) continue;
  let back, fore;
  if (el.closest("svg")) {
    const group = el.closest("g.version");
    const bar = group && group.querySelector("rect");
    const barBox = bar && bar.getBoundingClientRect();
    const onBar = barBox && box.left < barBox.right && barBox.left < box.right
      && box.top < barBox.bottom && barBox.top < box.bottom;
    back = (onBar && rgba(getComputedStyle(bar).fill)) || backdrop(el.closest("svg"));
    fore = rgba(style.fill);
  } else {
    back = backdrop(el);
    fore = rgba(style.color);
  }
  if (!fore) continue;
  const size = parseFloat(style.fontSize);
  const large = size >= 24 || (parseInt(style.fontWeight, 10) >= 700 && size >= 18.66);
  const got = ratio(over(fore, back), back);
  if (got < (large ? 3 : 4.5)) {
    failures.push(`${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""} ` +
                  `"${node.textContent.trim().slice(0, 40)}": ${got.toFixed(2)}:1`);
  }
}
return failures;
"""

NAMES = r"""
const failures = [];
for (const el of document.querySelectorAll("input, select, textarea")) {
  if (el.type === "hidden") continue;
  const labelled = (el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)) || el.closest("label")
    || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
  if (!labelled) failures.push(`unlabelled ${el.outerHTML.slice(0, 80)}`);
}
for (const el of document.querySelectorAll("a[href], button, summary")) {
  if (!(el.textContent.trim() || el.getAttribute("aria-label"))) failures.push(`nameless ${el.outerHTML.slice(0, 80)}`);
}
for (const img of document.querySelectorAll("img")) {
  if (!img.hasAttribute("alt")) failures.push(`img without alt ${img.outerHTML.slice(0, 80)}`);
}
if (!document.documentElement.lang) failures.push("html has no lang");
if (document.querySelectorAll("h1").length !== 1) failures.push("a page needs exactly one h1");
return failures;
"""

FOCUSABLE = r"""
const tabStop = (el) => {
  if (el.type !== "radio") return true;
  const group = [...document.querySelectorAll(`input[type=radio][name="${CSS.escape(el.name)}"]`)];
  return el.checked || (!group.some((r) => r.checked) && group[0] === el);
};
const CONTROLS = "a[href], button, input:not([type=hidden]), select, textarea, summary";
const scroller = (el) => {  // Chromium lets the keyboard focus a scrolled box with nothing focusable inside
  const style = getComputedStyle(el);
  const scrolls = (/(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth)
    || (/(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight);
  return scrolls && !el.querySelector(CONTROLS);
};
return [...document.body.querySelectorAll("*")]
  .filter((el) => el.matches(CONTROLS) || scroller(el))
  .filter((el) => !el.disabled && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden")
  .filter(tabStop);
"""

FOCUS_RING = r"""
const style = getComputedStyle(arguments[0]);
return style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
"""


def audit(browser: WebDriver) -> list[str]:
    """Every contrast, naming and keyboard failure of the page on screen (empty: none)."""
    failures = [f"contrast {line}" for line in browser.execute_script(CONTRAST)]
    failures += browser.execute_script(NAMES)
    failures += keyboard_walk(browser)
    return failures


def keyboard_walk(browser: WebDriver) -> list[str]:
    """Tab from the top of the page through every control: each must be reached, in
    document order, and show a focus ring when it has focus."""
    controls = browser.execute_script(FOCUSABLE)
    browser.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    failures, reached = [], []
    for _ in range(len(controls)):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        active = browser.switch_to.active_element
        reached.append(active)
        if not browser.execute_script(FOCUS_RING, active):
            failures.append(f"no visible focus on {active.get_attribute('outerHTML')[:80]}")
    missing = [c.get_attribute("outerHTML")[:80] for c in controls if c not in reached]
    failures += [f"not reachable by Tab: {html}" for html in missing]
    if not missing and reached != controls:
        failures.append("Tab does not follow the document order")
    return failures
