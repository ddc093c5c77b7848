//! The diagram's page: its legend and CSS.

pub(super) const LEGEND: &str = "<ul class=\"legend\"><li class=\"rq\">━━▶ request</li><li class=\"rp\">╍╍▶ reply</li><li class=\"er\">╍╍▶ error reply</li><li class=\"nt\">──▶ notification</li><li class=\"ev\">┈┈▶ event</li><li class=\"en\">┉┉▶ end record</li><li class=\"cn\">━━▶ cancel</li><li class=\"bd\">▭ not a message</li><li class=\"fl\">red row: findings</li><li>] a request joined to its reply</li><li>▬ a run of like events or notifications, folded</li></ul>\n";

/// The page's frame: as the matrix page's.
pub(super) const PAGE_STYLE: &str = r#"
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 1rem; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328; background: #fff; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1rem 0 .4rem; }
p.meta { color: #57606a; margin: 0 0 .75rem; }
ul.loose { color: #a40e26; }
footer { margin-top: 1rem; color: #57606a; font-size: 12px; }
"#;

/// The diagram's own CSS, also in the single-run page. The lifelines are
/// the grid's background (`--t`: the bracket tracks' width), a row's arrow
/// its face's; offscreen rows are not laid out (`content-visibility`), so
/// ten thousand of them open in well under a second.
pub const STYLE: &str = r#"
.sq, .legend { --lane: #afb8c1; --rq: #0969da; --rp: #1a7f37; --er: #cf222e; --nt: #8250df; --ev: #6e7781; --cn: #bc4c00; --bd: #9a6700; }
.rq { --k: var(--rq); } .en { --k: #1f2328; } .rp { --k: var(--rp); } .er { --k: var(--er); } .nt { --k: var(--nt); } .ev { --k: var(--ev); } .cn { --k: var(--cn); } .bd { --k: var(--bd); }
.legend { display: flex; flex-wrap: wrap; gap: .2rem 1rem; list-style: none; padding: 0; margin: 0 0 .75rem; font-size: 12px; }
.legend li { color: var(--k, #1f2328); white-space: nowrap; }
.legend .fl { color: #a40e26; background: #ffebe9; padding: 0 .3rem; }
.sq { --l: 7rem; --r: 5rem; display: grid; max-width: 76rem; font-size: 12px; background: linear-gradient(var(--lane), var(--lane)) var(--l) 0 / 2px 100% no-repeat, linear-gradient(var(--lane), var(--lane)) calc(100% - var(--t) - var(--r)) 0 / 2px 100% no-repeat; }
.sq > .hd, .sq > .q, .sq > .more { grid-column: 1; margin: 0; }
.sq > .q { content-visibility: auto; contain-intrinsic-size: auto 26px; }
.sq .hd { position: sticky; top: 0; z-index: 2; height: 26px; background: #fff; border-bottom: 1px solid #d0d7de; }
.sq .hd span { position: absolute; top: 3px; transform: translateX(-50%); font-weight: 600; font-size: 13px; background: #fff; padding: 0 .4rem; white-space: nowrap; }
.sq .hd span:first-child { left: var(--l); } .sq .hd span:last-child { left: calc(100% - var(--r)); }
.sq summary { display: block; list-style: none; cursor: pointer; }
.sq summary::-webkit-details-marker { display: none; }
.sq summary:hover { background-color: rgba(9, 105, 218, .06); }
.sq .h { display: block; position: relative; height: 26px; line-height: 19px; padding: 0 calc(var(--r) + 2px) 0 calc(var(--l) + 2px); text-align: center; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; color: var(--k); background: linear-gradient(var(--k), var(--k)) 0 20px / 100% 2px no-repeat content-box; }
.sq .rp .h, .sq .rp.h, .sq .er .h, .sq .er.h { background-image: repeating-linear-gradient(90deg, var(--k) 0 6px, transparent 6px 10px); }
.sq .ev .h, .sq .ev.h, .sq .en .h, .sq .en.h { background-image: repeating-linear-gradient(90deg, var(--k) 0 2px, transparent 2px 5px); }
.sq .en .h, .sq .en.h { background-size: 100% 3px; }
.sq .nt .h, .sq .nt.h { background-size: 100% 1px; background-position: 0 21px; }
.sq .r .h, .sq .r.h { background-size: 100% 4px; background-position: 0 19px; }
.sq .x .h, .sq .x.h { background: #fff8c5 content-box; }
.sq .h::before { content: attr(data-n); position: absolute; left: 0; top: 0; width: calc(var(--l) - .7rem); text-align: right; line-height: 26px; color: #57606a; font-variant-numeric: tabular-nums; }
.sq .h::after { content: ""; position: absolute; top: 16px; border: 5px solid transparent; }
.sq .c .h::after, .sq .c.h::after { right: var(--r); border-left: 10px solid var(--k); border-right: 0; }
.sq .s .h::after, .sq .s.h::after { left: calc(var(--l) + 2px); border-right: 10px solid var(--k); border-left: 0; }
.sq .x .h::after, .sq .x.h::after { display: none; }
.sq .h b { font-weight: 600; color: #1f2328; }
.sq .h em { font-style: normal; color: #57606a; }
.sq .u .h em, .sq .u.h em { color: var(--er); font-weight: 600; }
.sq .q.f { background-color: rgba(207, 34, 46, .09); }
.sq .fs { display: block; color: #a40e26; padding: 0 calc(var(--r) + 16px) 4px calc(var(--l) + 16px); overflow-wrap: anywhere; }
.sq .fs b { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.sq .q > pre { margin: 0 calc(var(--r) + 8px) 4px calc(var(--l) + 8px); padding: 4px 6px; background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 3px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 16rem; overflow: auto; font-size: 11px; }
.sq .p { --k: var(--rp); margin: 20px 0 -22px; width: 9px; border: 2px solid var(--k); border-left: 0; border-radius: 0 5px 5px 0; }
.sq .p.cn { --k: var(--cn); border-style: dashed; border-left: 0; }
.sq .more { margin: .5rem 0; color: #57606a; }
@media (max-width: 600px) {
  .sq { --l: 3rem; --r: 1.2rem; }
  .sq .hd span:last-child { transform: translateX(-100%); }
}
"#;
