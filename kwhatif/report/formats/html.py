"""-o html: one self-contained page per report (CSS and JavaScript inline; nothing fetched).

The page is the report's JSON document (``to_dict()``), embedded as data and drawn in the browser:
the HTML is never a second source of truth. The part written here (title, heading, summary) is
escaped for HTML; the document is embedded so that no string in it can end the script element or
break the JavaScript that reads it, and the script draws every string as text, never as markup.
"""

from __future__ import annotations

import html
import json
from typing import Any

from kwhatif.escape import json_text, visible
from kwhatif.report.base import OutputFormat, Report, ReportKind
from kwhatif.report.check import summary_line_of
from kwhatif.report.formats.formatter import Formatter

# Nodes drawn per table until "show all" is pressed.
TOP_NODES = 50
# A node table of more rows than this draws only the rows in view (a virtual table): "show all" of
# 5,000 nodes lays out in well under a second instead of tens of seconds.
VIRTUAL_ROWS = 200


class HtmlFormatter(Formatter):
    """Any report: the page draws its JSON document (every kind of report has a page)."""

    output_format = OutputFormat.HTML

    def format(self, report: Report) -> str:
        from kwhatif.report.autoscale import AutoscaleReport

        if isinstance(report, AutoscaleReport):
            from kwhatif.report.formats.autoscale import html as autoscale_page

            return autoscale_page(report)
        from kwhatif.report.karpenter import KarpenterReport, html_page

        if isinstance(report, KarpenterReport):
            return html_page(report)
        return page(report)


def embed_json(doc: dict[str, Any]) -> str:
    """The document as the text of a <script type="application/json">: ``<`` (so ``</script>``
    and ``<!--``), ``>`` and ``&`` written as JSON escapes, and U+2028/U+2029 too (line
    terminators to older JavaScript parsers)."""
    text = json_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))  # U+2028/9, C1: \\uNNNN
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text


def _subject(doc: dict[str, Any]) -> str:
    kind = doc["kind"]
    if kind == ReportKind.CAPACITY:
        return f"{doc['pod']['namespace']}/{doc['pod']['name']}"
    if kind == ReportKind.DRAIN:
        return ", ".join(doc["nodes"])
    if kind == ReportKind.CHECK:
        return f"{doc['summary']['workloads']} workloads"
    return ", ".join(f"{r['pod']['namespace']}/{r['pod']['name']}" for r in doc["results"][:3]) + (
        f" and {len(doc['results']) - 3} more" if len(doc["results"]) > 3 else ""
    )


def _summary(doc: dict[str, Any]) -> str:
    """One line written without JavaScript, so the page says its answer even with scripts off."""
    kind = doc["kind"]
    s = doc.get("summary", {})
    if kind == ReportKind.SCHEDULE:
        return f"{s['scheduled']}/{s['pods']} pods scheduled, {s['unschedulable']} unschedulable"
    if kind == ReportKind.CHECK:
        # the table's very line (CheckReport.summary_line), from the document's verdicts
        return summary_line_of([w["verdict"] for w in doc["workloads"]], bool(doc.get("strict")))
    if kind == ReportKind.CAPACITY:
        return f"{doc['fits']} copies fit (stopped by {doc['stoppedBy']})"
    refused = [r["node"] for r in doc.get("refusals", [])]
    # the table's headline says the same (TableFormatter.drain): a refusal first, as it decides the answer
    head = f"drain refuses {', '.join(refused)} (cordoned, nothing on it evicted); " if refused else ""
    return head + (
        f"{s['evicted']} pods evicted: {s['placed']} placed, {s['notPlaced']} not placed, "
        f"{s['lost']} lost, {s['pdbBlocked']} blocked by a PodDisruptionBudget"
    )


def page(report: Report) -> str:
    doc = report.to_dict()
    return page_text(doc, _subject(doc), embed_json(doc))


def page_text(doc: dict[str, Any], subject: str, embedded: str) -> str:
    """The page of report document ``doc`` (its results are read only through ``subject``, what
    the title says of them), its data the text ``embedded`` (embed_json of it)."""

    def esc(text: str) -> str:
        # the head of the page is text: its control characters visible, as in a table, and no
        # "##[" that a CI log would read as a legacy workflow command
        return html.escape(visible(text)).replace("##[", "#&#35;[")

    version = doc.get("schedulerVersion")
    meta = f"profile {doc['profile']}" + (f" · kube-scheduler {version}" if version else "")
    title = f"kwhatif {doc['kind']}: {subject}"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        # nothing is loaded from anywhere: the page works offline and as a CI attachment
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n"
        f"<script>{_ERRORS_JS}</script>\n</head>\n"
        f'<body data-kind="{esc(doc["kind"])}" data-top="{TOP_NODES}" data-virtual="{VIRTUAL_ROWS}">\n'
        f'<header><h1>{esc(title)}</h1><p class="meta">{esc(meta)}</p>'
        f'<p class="summary" id="summary">{esc(_summary(doc))}</p></header>\n'
        "<noscript><p>The details of this report are drawn by JavaScript; "
        "kwhatif's -o json gives the same document.</p></noscript>\n"
        '<main id="app"></main>\n'
        '<pre id="kwhatif-errors" hidden></pre>\n'
        f'<script type="application/json" id="kwhatif-report">{embedded}</script>\n'
        f"<script>{_APP_JS}</script>\n"
        "</body>\n</html>\n"
    )


_CSS = """
:root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--line:#d6dae0;--panel:#f5f7fa;--ok:#1a7f37;--okbg:#d4f3dc;
--warn:#9a6700;--warnbg:#fff1c2;--bad:#b42318;--badbg:#fde0dc;--err:#6f42c1;--errbg:#ece2fb;--skip:#6e7781;
--skipbg:#eceff2;--heat:210;--accent:#0969da;--mark:#fff3b0}
@media (prefers-color-scheme:dark){:root{--bg:#0f1419;--fg:#e6edf3;--muted:#9aa4af;--line:#30363d;
--panel:#161b22;--ok:#56d364;--okbg:#133d21;--warn:#e3b341;--warnbg:#3d2e00;--bad:#ff7b72;--badbg:#4a1513;
--err:#d2a8ff;--errbg:#352155;--skip:#8b949e;--skipbg:#21262d;--accent:#58a6ff;--mark:#4d4200}}
*{box-sizing:border-box}
body{margin:0;padding:1rem 1.5rem;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
h1{font-size:1.25rem;margin:.2rem 0}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}h3{font-size:1rem;margin:1rem 0 .3rem}
.meta{color:var(--muted);margin:.1rem 0}.summary{font-weight:600;margin:.3rem 0 .8rem}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
section.pod,section.box{border:1px solid var(--line);border-radius:8px;padding:.6rem 1rem;margin:.8rem 0;
background:var(--panel)}
details>summary{cursor:pointer;font-weight:600}
.badge{white-space:nowrap;display:inline-block;padding:0 .45em;border-radius:4px;font-size:.85em;font-weight:600;margin-left:.3em}
.s-ok{color:var(--ok);background:var(--okbg)}.s-warn{color:var(--warn);background:var(--warnbg)}
.s-bad{color:var(--bad);background:var(--badbg)}.s-err{color:var(--err);background:var(--errbg)}
.s-skip{color:var(--skip);background:var(--skipbg)}
.fiterror{white-space:pre-wrap;border-left:3px solid var(--bad);padding:.2rem .6rem;margin:.4rem 0}
table{border-collapse:collapse;margin:.3rem 0;font-size:.9em}
th,td{border:1px solid var(--line);padding:.15rem .4rem;text-align:left;vertical-align:top}
tbody th,td.muted,td.mono,td.nw{white-space:nowrap}
th{background:var(--panel);position:sticky;top:0}
th.rot{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;font-weight:500;padding:.4rem .15rem}
td.cell{text-align:center;min-width:1.8em}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.chosen td:first-child{box-shadow:inset 4px 0 0 var(--accent)}tr.chosen{font-weight:600}
tr.tie td:first-child{box-shadow:inset 4px 0 0 var(--warn)}
tr.focus>*{background:var(--mark)}
.scroll{overflow:auto;max-height:75vh;border:1px solid var(--line);border-radius:6px}
table.virtual th,table.virtual td{white-space:nowrap}
.controls{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.4rem 0}
.controls label{color:var(--muted)}
input,select,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);
border-radius:4px;padding:.1rem .35rem}button{cursor:pointer}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.legend span{margin-right:.8em}.muted{color:var(--muted)}
.bar{display:inline-block;height:.9em;background:var(--accent);border-radius:2px;vertical-align:middle}
.track{display:inline-block;width:7rem;height:.9em;background:var(--skipbg);border-radius:2px;
vertical-align:middle;position:relative;overflow:hidden}
.track .before{position:absolute;left:0;top:0;bottom:0;background:var(--skip)}
.track .after{position:absolute;top:0;bottom:0;background:var(--accent)}
.track.over .after{background:var(--bad)}
ul{margin:.2rem 0;padding-left:1.3rem}
"""

# Collects the page's own errors into the DOM (the browser tests read them from there).
_ERRORS_JS = """
(function(){var errs=[];function add(m){errs.push(String(m));var e=document.getElementById('kwhatif-errors');
if(e){e.textContent=errs.join('\\n');e.hidden=false;}document.documentElement.setAttribute('data-errors',
String(errs.length));}window.addEventListener('error',function(ev){add('error: '+ev.message+' (line '+ev.lineno+':'+ev.colno+')');});
window.addEventListener('unhandledrejection',function(ev){add('rejection: '+ev.reason);});
var ce=console.error;console.error=function(){add('console.error: '+Array.prototype.join.call(arguments,' '));
return ce.apply(console,arguments);};document.documentElement.setAttribute('data-errors','0');})();
"""

_APP_JS = r"""
(function(){
'use strict';
var doc=JSON.parse(document.getElementById('kwhatif-report').textContent);
var TOP=+document.body.getAttribute('data-top');
var ALL=/(^|[#&])all($|&)/.test(location.hash.slice(1));
var ZONE='topology.kubernetes.io/zone';
function el(tag,attrs){var e=document.createElement(tag);if(attrs){for(var k in attrs){var v=attrs[k];
if(v===null||v===undefined||v===false)continue;if(k==='text')e.textContent=String(v);else if(k==='cls')e.className=v;
else e.setAttribute(k,v===true?'':String(v));}}for(var i=2;i<arguments.length;i++){var c=arguments[i];
if(c===null||c===undefined)continue;if(Array.isArray(c)){c.forEach(function(x){if(x!=null)e.appendChild(
typeof x==='object'?x:document.createTextNode(String(x)));});}else e.appendChild(typeof c==='object'?c:
document.createTextNode(String(c)));}return e;}
function txt(s){return document.createTextNode(s==null?'':String(s));}
function ref(p){return p.namespace+'/'+p.name;}
function wref(w){return (w.namespace?w.namespace+'/':'')+w.name;}
var CODE={Success:['s-ok','\u2713'],Skip:['s-skip','\u2013'],Unschedulable:['s-warn','\u2717'],
UnschedulableAndUnresolvable:['s-bad','\u2298'],Error:['s-err','!']};
var STATUS={Scheduled:'s-ok',Unschedulable:'s-bad',Error:'s-err',Gated:'s-skip'};
function badge(text,cls){return el('span',{cls:'badge '+cls,text:text});}
function list(items,cls){if(!items||!items.length)return null;return el('ul',{cls:cls},items.map(function(i){
return el('li',null,i);}));}
function section(title,body,open){var d=el('details',{open:open!==false},el('summary',{text:title}));
body.forEach(function(b){if(b)d.appendChild(b);});return d;}
function labelsOf(name){var l=doc.nodeLabels;return(l&&l[name])||{};}
function zoneOf(labels){return labels[ZONE]||labels['failure-domain.beta.kubernetes.io/zone']||'';}
function matchLabel(labels,name,q){if(!q)return true;var i=q.indexOf('=');if(i>0){var k=q.slice(0,i).trim(),
v=q.slice(i+1).trim();return labels[k]===v;}q=q.toLowerCase();if(name.toLowerCase().indexOf(q)>=0)return true;
for(var k2 in labels){if(k2.toLowerCase().indexOf(q)>=0||String(labels[k2]).toLowerCase().indexOf(q)>=0)
return true;}return false;}

/* A node table with its controls: filter by verdict, zone and label, sort, top nodes or all.
   A table of more than VIRTUAL rows draws only the rows in view (and OVERSCAN on each side), with
   spacer rows standing for the others, and draws again as it scrolls: a 5,000-node table lays
   out as fast as a 50-node one. opts.draw(body,rows) draws a table of some rows; the rows of a
   window are taken from a table it draws of them. */
var VIRTUAL=+document.body.getAttribute('data-virtual');var OVERSCAN=20;var ROW_GUESS=24;
/* #node=NAME: every node table shows all its nodes, scrolled to NAME's row */
var FOCUS=(function(){var m=/(?:^|[#&])node=([^&]*)/.exec(location.hash.slice(1));if(!m)return null;
  try{return decodeURIComponent(m[1]);}catch(e){return m[1];}})();if(FOCUS)ALL=true;
/* what waits for the page to be laid out (a table measured once it is in the document) */
var LAID=[];
function nodeView(rows,opts){
  var wrap=el('div',{cls:'nodeview'});var state={verdict:'',zone:'',q:'',sort:opts.sorts[0][0],all:ALL};
  var zones={};rows.forEach(function(r){var z=zoneOf(r.labels);if(z)zones[z]=1;});
  var verdictSel=el('select',{'aria-label':'verdict'},el('option',{value:'',text:'every verdict'}),
    opts.verdicts.map(function(v){return el('option',{value:v,text:v});}));
  var zoneSel=el('select',{'aria-label':'zone'},el('option',{value:'',text:'every zone'}),
    Object.keys(zones).sort().map(function(z){return el('option',{value:z,text:z});}));
  var q=el('input',{type:'search',placeholder:'node or label (key=value)','aria-label':'node or label'});
  var sortSel=el('select',{'aria-label':'sort'},opts.sorts.map(function(s){return el('option',{value:s[0],
    text:'sort: '+s[0]});}));
  var more=el('button',{type:'button'});var count=el('span',{cls:'muted'});var body=el('div');
  var controls=el('div',{cls:'controls'},el('label',{text:'Nodes:'}),opts.verdicts.length?verdictSel:null,
    Object.keys(zones).length?zoneSel:null,q,sortSel,count,more);
  wrap.appendChild(controls);wrap.appendChild(body);
  var virt=null;
  function windowRows(from,to){var tmp=el('div');opts.draw(tmp,virt.rows.slice(from,to));
    var tb=tmp.querySelector('tbody');return tb?Array.prototype.slice.call(tb.rows):[];}
  function mark(root){/* the row of #node=NAME */if(FOCUS==null)return null;var found=null;
    Array.prototype.forEach.call(root.querySelectorAll('tr[data-node]'),function(tr){
      if(tr.getAttribute('data-node')===FOCUS){tr.classList.add('focus');found=tr;}});return found;}
  function spacer(h){return el('tr',{'data-spacer':'1','aria-hidden':'true'},el('td',{colspan:virt.cols,
    style:'height:'+Math.round(h)+'px;padding:0;border:0'}));}
  function paint(force){
    var v=virt;if(!v)return;var n=v.rows.length,sc=v.scroll;
    var top=Math.max(0,sc.scrollTop-v.head);var view=sc.clientHeight||window.innerHeight||800;
    var from=Math.max(0,Math.floor(top/v.h)-OVERSCAN),to=Math.min(n,Math.ceil((top+view)/v.h)+OVERSCAN);
    if(!force&&from===v.from&&to===v.to)return;v.from=from;v.to=to;
    var tb=v.tbody;tb.textContent='';if(from>0)tb.appendChild(spacer(from*v.h));
    windowRows(from,to).forEach(function(tr){tb.appendChild(tr);});if(to<n)tb.appendChild(spacer((n-to)*v.h));
    mark(tb);}
  function measure(){
    /* the row height and the head's, once the table is laid out (it is not while the page is built) */
    var v=virt;if(!v)return;var drawn=Array.prototype.filter.call(v.tbody.rows,function(r){return!r.hasAttribute('data-spacer');});
    var h=0;drawn.forEach(function(r){h+=r.getBoundingClientRect().height;});
    if(h>0){v.h=h/drawn.length;v.head=v.table.tHead?v.table.tHead.getBoundingClientRect().height:0;}
    var at=FOCUS==null?-1:v.rows.map(function(r){return r.name;}).indexOf(FOCUS);
    if(at>=0)v.scroll.scrollTop=v.head+at*v.h-v.h*3;paint(true);}
  function draw(){
    var shown=rows.filter(function(r){return(!state.verdict||r.verdict===state.verdict)&&
      (!state.zone||zoneOf(r.labels)===state.zone)&&matchLabel(r.labels,r.name,state.q);});
    var key=opts.sorts.filter(function(s){return s[0]===state.sort;})[0][1];
    shown=shown.slice().sort(function(a,b){var c=key(a,b);return c||(a.name<b.name?-1:a.name>b.name?1:0);});
    var n=shown.length;var cut=state.all?shown:shown.slice(0,TOP);
    count.textContent=(cut.length<n?'top '+cut.length+' of ':'')+n+' node'+(n===1?'':'s')+
      (n<rows.length?' (of '+rows.length+')':'');
    more.hidden=n<=TOP;more.textContent=state.all?'show the top '+TOP:'show all '+n;
    body.textContent='';virt=null;
    if(cut.length<=VIRTUAL){opts.draw(body,cut);var tr=mark(body);if(tr){var go=function(){
      var sc=body.querySelector('.scroll');if(sc)sc.scrollTop=Math.max(0,tr.offsetTop-3*tr.offsetHeight);};
      if(LAID)LAID.push(go);else go();}return;}
    opts.draw(body,cut.slice(0,1));
    var sc=body.querySelector('.scroll'),t=sc.querySelector('table'),tb=t.tBodies[0];t.classList.add('virtual');
    virt={rows:cut,scroll:sc,table:t,tbody:tb,cols:tb.rows[0].cells.length,h:ROW_GUESS,head:0,from:-1,to:-1};
    var queued=false;sc.addEventListener('scroll',function(){if(queued)return;queued=true;
      requestAnimationFrame(function(){queued=false;paint(false);});});
    paint(true);if(LAID)LAID.push(measure);else measure();}
  verdictSel.onchange=function(){state.verdict=verdictSel.value;draw();};
  zoneSel.onchange=function(){state.zone=zoneSel.value;draw();};
  q.oninput=function(){state.q=q.value.trim();draw();};
  sortSel.onchange=function(){state.sort=sortSel.value;draw();};
  more.onclick=function(){state.all=!state.all;draw();};
  draw();return wrap;}

function byName(a,b){return a.name<b.name?-1:a.name>b.name?1:0;}
function plugins(nodes,field){var seen={},order=[];nodes.forEach(function(n){(n[field]||[]).forEach(function(f){
  if(!seen[f.plugin]){seen[f.plugin]=1;order.push(f.plugin);}});});return order;}

function filterMatrix(att){
  var ps=plugins(att.nodes,'filters');var tie={};(att.tie||[]).forEach(function(t){tie[t]=1;});
  var rows=att.nodes.map(function(n){var labels=labelsOf(n.name);var first=null;
    n.filters.forEach(function(f){if(!first&&f.code!=='Success'&&f.code!=='Skip')first=f;});
    return{name:n.name,labels:labels,node:n,first:first,verdict:n.excludedByPreFilterResult?'excluded':
      n.feasible?'feasible':'infeasible',chosen:n.name===att.node,tie:!!tie[n.name]};});
  function score(r){return r.node.total==null?-1:r.node.total;}
  var sorts=[['score',function(a,b){return(b.chosen-a.chosen)||(score(b)-score(a));}],['name',byName],
    ['verdict',function(a,b){return a.verdict<b.verdict?-1:a.verdict>b.verdict?1:0;}],
    ['zone',function(a,b){var x=zoneOf(a.labels),y=zoneOf(b.labels);return x<y?-1:x>y?1:0;}]];
  var heat=plugins(att.nodes,'scores');
  function draw(body,cut){
    var t=el('table',{cls:'matrix'});var cap=el('caption',{cls:'sr',text:'Filter plugins per node'});t.appendChild(cap);
    t.appendChild(el('thead',null,el('tr',null,el('th',{text:'node'}),el('th',{text:'zone'}),
      ps.map(function(p){return el('th',{cls:'rot',scope:'col',text:p});}),el('th',{text:'upstream reason'}))));
    var tb=el('tbody');cut.forEach(function(r){
      var byP={};r.node.filters.forEach(function(f){byP[f.plugin]=f;});
      var tr=el('tr',{cls:(r.chosen?'chosen ':'')+(r.tie?'tie':''),'data-node':r.name},
        el('th',{scope:'row'},r.name,r.chosen?badge('chosen','s-ok'):null,r.tie&&!r.chosen?badge('tie','s-warn'):null,
          r.node.excludedByPreFilterResult?badge('not in PreFilterResult','s-skip'):null),
        el('td',{cls:'muted',text:zoneOf(r.labels)}));
      ps.forEach(function(p){var f=byP[p];if(!f){tr.appendChild(el('td',{cls:'cell muted',text:''}));return;}
        var c=CODE[f.code]||['s-err','?'];var why=p+': '+f.code+(f.reasons.length?': '+f.reasons.join('; '):'')+
          (f.details&&f.details.length?' ('+f.details.join('; ')+')':'');
        tr.appendChild(el('td',{cls:'cell '+c[0],title:why},el('span',{'aria-hidden':'true',text:c[1]}),
          el('span',{cls:'sr',text:why})));});
      tr.appendChild(el('td',{text:r.first?r.first.plugin+': '+r.first.reasons.join(', '):''}));
      tb.appendChild(tr);});
    t.appendChild(tb);body.appendChild(el('div',{cls:'scroll'},t));}
  var legend=el('p',{cls:'legend muted'},Object.keys(CODE).map(function(k){return el('span',null,
    badge(CODE[k][1],CODE[k][0]),' '+k);}));
  var parts=[legend,nodeView(rows,{verdicts:['feasible','infeasible','excluded'],sorts:sorts,draw:draw})];
  return{parts:parts,rows:rows,heat:heat,sorts:sorts};}

function heatmap(att,fm){
  var rows=fm.rows.filter(function(r){return r.node.scores&&r.node.scores.length;});
  if(!rows.length)return null;var ps=fm.heat;
  function draw(body,cut){
    var t=el('table',{cls:'heat'});t.appendChild(el('caption',{cls:'sr',text:'Score plugins per feasible node'}));
    t.appendChild(el('thead',null,el('tr',null,el('th',{text:'node'}),el('th',{text:'zone'}),
      ps.map(function(p){return el('th',{cls:'rot',scope:'col',text:p});}),el('th',{text:'total'}))));
    var tb=el('tbody');cut.forEach(function(r){var byP={};r.node.scores.forEach(function(s){byP[s.plugin]=s;});
      var tr=el('tr',{cls:(r.chosen?'chosen ':'')+(r.tie?'tie':''),'data-node':r.name},
        el('th',{scope:'row'},r.name,r.chosen?badge('chosen','s-ok'):null,r.tie&&!r.chosen?badge('tie','s-warn'):null),
        el('td',{cls:'muted',text:zoneOf(r.labels)}));
      ps.forEach(function(p){var s=byP[p];if(!s){tr.appendChild(el('td',{cls:'num muted'}));return;}
        var why=p+': raw '+s.raw+', normalized '+s.normalized+' \u00d7 weight '+s.weight+' = '+s.weighted;
        var a=Math.max(0,Math.min(100,s.normalized));
        tr.appendChild(el('td',{cls:'num',title:why,style:'background:hsla(var(--heat),80%,50%,'+(a/100*0.55).toFixed(3)+')'},
          el('span',{'aria-hidden':'true',text:s.weighted}),el('span',{cls:'sr',text:why})));});
      tr.appendChild(el('td',{cls:'num',text:r.node.total}));tb.appendChild(tr);});
    t.appendChild(tb);body.appendChild(el('div',{cls:'scroll'},t));}
  return nodeView(rows,{verdicts:[],sorts:fm.sorts,draw:draw});}

function statusLine(r){return el('p',null,badge(r.status,STATUS[r.status]||'s-skip'),
  r.node?el('span',null,' on ',el('b',{text:r.node})):null,
  r.tie&&r.tie.length?el('span',{cls:'muted',text:' (tie: '+r.tie.join(', ')+'; upstream picks one at random)'}):null);}

function preemptionBox(p){if(!p)return null;return el('div',null,el('h4',{text:'Preemption: nominated node '+
  p.nominatedNode}),p.victims.length?el('table',null,el('thead',null,el('tr',null,['victim','node','priority',
  'PodDisruptionBudget'].map(function(h){return el('th',{text:h});}))),el('tbody',null,p.victims.map(function(v){
  return el('tr',null,el('td',{text:ref(v)}),el('td',{text:v.node}),el('td',{cls:'num',text:v.priority}),
  el('td',null,v.pdbViolation?badge('violated','s-bad'):badge('respected','s-ok')));}))):el('p',{text:'no victims'}));}

function attemptBody(a){
  var parts=[];
  if(a.message)parts.push(el('pre',{cls:'fiterror',text:a.message}));
  if(a.nominatedNodeName)parts.push(el('p',{cls:'muted',text:'started nominated to '+a.nominatedNodeName}));
  if(a.preFilter&&a.preFilter.length)parts.push(el('div',null,el('h4',{text:'PreFilter'}),list(a.preFilter.map(
    function(f){return f.plugin+': '+f.code+(f.reasons.length?': '+f.reasons.join('; '):'');}))));
  parts.push(preemptionBox(a.preemption));
  if(a.binding)parts.push(el('p',null,'binding: '+a.binding.node+' ('+a.binding.outcome+')'));
  if(a.nodes&&a.nodes.length){var fm=filterMatrix(a);
    parts.push(el('h4',{text:'Filters: '+(a.feasibleNodes||a.nodes.filter(function(n){return n.feasible;}).length)+
      ' of '+(a.evaluatedNodes||a.nodes.length)+' nodes feasible'}));parts=parts.concat(fm.parts);
    var h=heatmap(a,fm);if(h){parts.push(el('h4',{text:'Scores (weighted; raw, normalized and weight on hover)'}));
    parts.push(h);}}
  if(a.hints&&a.hints.length)parts.push(el('div',null,el('h4',{text:'Hints'}),list(a.hints)));
  if(a.notes&&a.notes.length)parts.push(el('div',null,el('h4',{text:'Notes'}),list(a.notes)));
  return parts;}

function podSection(r,open){
  var s=el('section',{cls:'pod',id:'pod-'+ref(r.pod)});var d=el('details',{open:open});
  d.appendChild(el('summary',null,ref(r.pod),badge(r.status,STATUS[r.status]||'s-skip'),
    r.node?el('span',{cls:'muted',text:' \u2192 '+r.node}):null));s.appendChild(d);var drawn=false;
  function fill(){if(drawn)return;drawn=true;d.appendChild(statusLine(r));
    d.appendChild(el('p',{cls:'muted',text:'profile '+r.profile+' \u00b7 priority '+r.priority+' \u00b7 '+
      r.attempts.length+' attempt'+(r.attempts.length===1?'':'s')}));
    var atts=r.attempts&&r.attempts.length?r.attempts:[r];
    atts.forEach(function(a){
      d.appendChild(section('Attempt '+a.attempt+': '+a.status+(a.node?' on '+a.node:'')+
        (a.preemption?' (preempts on '+a.preemption.nominatedNode+')':''),attemptBody(a),true));});}
  if(open)fill();d.addEventListener('toggle',function(){if(d.open)fill();});return s;}

function table(heads,body){return el('table',null,el('thead',null,el('tr',null,heads.map(function(h){
  return el('th',{text:h});}))),body.tagName==='TBODY'?body:el('tbody',null,body));}
function notes(ns){return ns&&ns.length?el('section',{cls:'box'},el('h3',{text:'Notes'}),list(ns)):null;}
var app=document.getElementById('app');function add(x){if(x)app.appendChild(x);}

function schedule(){
  doc.results.forEach(function(r,i){add(podSection(r,ALL||i<5));});add(notes(doc.notes));}

var VERDICT={'fits':'s-ok','DOES NOT FIT':'s-bad','no eligible nodes':'s-warn','not checked':'s-warn','unknown':'s-warn'};
function check(){
  var byPod={};doc.results.forEach(function(r){byPod[ref(r.pod)]=r;});
  var verdicts={};doc.workloads.forEach(function(w){verdicts[w.verdict]=1;});
  var sel=el('select',{'aria-label':'verdict'},el('option',{value:'',text:'every verdict'}),
    Object.keys(verdicts).sort().map(function(v){return el('option',{value:v,text:v});}));
  var tb=el('tbody');
  function draw(){tb.textContent='';doc.workloads.forEach(function(w){if(sel.value&&w.verdict!==sel.value)return;
    var pods=(w.pods||[]).map(function(p){var r=byPod[p];return el('li',null,el('a',{href:'#pod-'+p,text:p}),
      r?(r.node?' \u2192 '+r.node:' '+r.status):'');});
    var on={};(w.pods||[]).forEach(function(p){var r=byPod[p];var k=r&&r.node?r.node:'(not placed)';on[k]=(on[k]||0)+1;});
    var spread=Object.keys(on).sort().map(function(k){return k+(on[k]>1?' \u00d7'+on[k]:'');}).join(', ');
    tb.appendChild(el('tr',{'data-workload':w.kind+' '+wref(w)},el('td',{text:w.kind}),
      el('td',{text:wref(w)}),el('td',null,badge(w.verdict,VERDICT[w.verdict]||'s-bad')),
      el('td',{cls:'num',text:w.desired==null?'?':w.desired}),el('td',{cls:'num',text:w.placed}),
      el('td',{cls:'num',text:w.notPlaced}),el('td',null,w.dominantReason||'',w.message&&w.message!==
      w.dominantReason?el('div',{cls:'muted',text:w.message}):null,list(w.notes),w.evicts.length?
      el('div',{text:'evicts '+w.evicts.join(', ')}):null),
      el('td',null,pods.length?el('details',{open:ALL},el('summary',{text:pods.length+' pod'+
      (pods.length===1?'':'s')+': '+spread}),el('ul',null,pods)):null),el('td',{cls:'muted mono',text:w.source})));});}
  sel.onchange=draw;draw();
  add(el('section',{cls:'box'},el('h2',{text:'Workloads'}),el('div',{cls:'controls'},el('label',{text:
    'Verdict:'}),sel),el('div',{cls:'scroll'},table(['kind','workload','verdict','desired','placed','not placed',
    'why','where the replicas land','source'],tb))));
  /* where the replicas land, per node: filter by zone and label, sort by how many land */
  var land={};doc.results.forEach(function(r){if(!r.node)return;var w=doc.workloads.filter(function(x){
    return(x.pods||[]).indexOf(ref(r.pod))>=0;}).map(function(x){return x.kind+' '+wref(x);})[0]||
    'Pod '+ref(r.pod);(land[r.node]=land[r.node]||{})[w]=(land[r.node][w]||0)+1;});
  var names=Object.keys(doc.nodeLabels||{});Object.keys(land).forEach(function(n){if(names.indexOf(n)<0)names.push(n);});
  var rows=names.map(function(n){var l=land[n]||{};var c=0;for(var k in l)c+=l[k];return{name:n,labels:labelsOf(n),
    land:l,count:c,verdict:c?'replicas land':'no replicas'};});
  function drawNodes(body,cut){var tb=el('tbody');cut.forEach(function(r){tb.appendChild(el('tr',{'data-node':r.name},
    el('th',{scope:'row',text:r.name}),el('td',{cls:'muted',text:zoneOf(r.labels)}),el('td',{cls:'num',text:r.count}),
    el('td',{text:Object.keys(r.land).sort().map(function(k){return k+' \u00d7'+r.land[k];}).join(', ')})));});
    body.appendChild(el('div',{cls:'scroll'},table(['node','zone','replicas','of'],tb)));}
  if(rows.length)add(el('section',{cls:'box'},el('h2',{text:'Where the replicas land'}),nodeView(rows,{verdicts:
    ['replicas land','no replicas'],sorts:[['replicas',function(a,b){return b.count-a.count;}],['name',byName],
    ['zone',function(a,b){var x=zoneOf(a.labels),y=zoneOf(b.labels);return x<y?-1:x>y?1:0;}]],draw:drawNodes})));
  add(el('h2',{text:'Pods'}));doc.results.forEach(function(r,i){add(podSection(r,ALL||i<3));});add(notes(doc.notes));}

function fmtRes(res,v){if(v==null)return'';if(res==='cpu')return(v/1000).toFixed(v%1000?2:0)+' cpu';
  if(res==='memory'||res==='ephemeral-storage'){var u=['B','KiB','MiB','GiB','TiB'],i=0;while(v>=1024&&i<4){v/=1024;i++;}
  return(Math.round(v*10)/10)+' '+u[i];}return String(v);}
function capacity(){
  var d=doc;add(el('section',{cls:'box'},el('h2',{text:d.fits+' copies of '+ref(d.pod)+' fit'}),
    el('p',{text:'stopped by '+d.stoppedBy+(d.minimum!=null?' \u00b7 minimum '+d.minimum:'')+
      (d.tiedPlacements?' \u00b7 '+d.tiedPlacements+' placements among tied nodes':'')}),
    d.firstFailure?el('div',null,el('h3',{text:'What stops the next copy'}),el('pre',{cls:'fiterror',text:
      d.firstFailure})):null,Object.keys(d.reasons).length?table(['reason','nodes'],Object.keys(d.reasons).map(
      function(k){return el('tr',null,el('td',{text:k}),el('td',{cls:'num',text:d.reasons[k]}));})):null));
  var nodes=d.nodes||[];var per=d.perNode||{};var max=1;nodes.forEach(function(n){max=Math.max(max,per[n.name]||0);});
  /* the resources something asks for on some node (cpu, memory and pods always) */
  var res=['cpu','memory','pods'];nodes.forEach(function(n){Object.keys(n.allocatable).forEach(function(k){
    if(res.indexOf(k)<0&&((n.requestedBefore[k]||0)>0||(n.requestedAfter[k]||0)>0))res.push(k);});});
  var rows=nodes.map(function(n){return{name:n.name,labels:n.labels||{},n:n,copies:per[n.name]||0,
    verdict:(per[n.name]||0)?'has copies':'no copies'};});
  function frac(n,k,w){var a=n.allocatable[k];return a?(n[w][k]||0)/a:0;}
  var sorts=[['copies',function(a,b){return b.copies-a.copies;}],['name',byName]].concat(res.map(function(k){
    return['free '+k+' after',function(a,b){return frac(a.n,k,'requestedAfter')-frac(b.n,k,'requestedAfter');}];}));
  function draw(body,cut){
    var tb=el('tbody');cut.forEach(function(r){var n=r.n;var tr=el('tr',{'data-node':r.name},el('th',{scope:'row',
      text:r.name}),el('td',{cls:'muted',text:zoneOf(r.labels)}),el('td',{cls:'nw'},el('span',{cls:'bar',style:'width:'+
      (r.copies/max*10).toFixed(2)+'rem'}),' ',el('b',{text:r.copies})));
      res.forEach(function(k){var a=n.allocatable[k]||0,b=n.requestedBefore[k]||0,af=n.requestedAfter[k]||0;
        var pb=a?Math.min(100,b/a*100):0,pa=a?Math.min(100,af/a*100):0;
        var why=k+': requested '+fmtRes(k,b)+' before, '+fmtRes(k,af)+' after, of '+fmtRes(k,a)+' allocatable';
        tr.appendChild(el('td',{cls:'nw',title:why},el('span',{cls:'track'+(af>a?' over':''),'aria-hidden':'true'},
          el('span',{cls:'before',style:'width:'+pb.toFixed(1)+'%'}),el('span',{cls:'after',style:'left:'+
          pb.toFixed(1)+'%;width:'+Math.max(0,pa-pb).toFixed(1)+'%'})),el('span',{cls:'mono',text:' '+
          (a?Math.floor(af*100/a):0)+'%'}),el('span',{cls:'sr',text:why})));});
      tb.appendChild(tr);});
    body.appendChild(el('div',{cls:'scroll'},table(['node','zone','copies'].concat(res.map(function(k){
      return k+' requested';})),tb)));}
  if(rows.length)add(el('section',{cls:'box'},el('h2',{text:'Copies per node, and what they take'}),
    el('p',{cls:'legend muted'},el('span',null,el('span',{cls:'bar',style:'width:1.5rem;background:var(--skip)'}),
    ' requested before'),el('span',null,el('span',{cls:'bar',style:'width:1.5rem'}),' requested by the copies'),
    el('span',{text:'(share of allocatable after the copies; exact amounts on hover)'})),nodeView(rows,{verdicts:['has copies','no copies'],sorts:sorts,draw:draw})));
  add(notes(d.notes));}

var ACTION={evict:'s-ok',blocked:'s-bad',refused:'s-bad','not-evicted':'s-skip','skip-daemonset':'s-skip','skip-mirror':'s-skip'};
function drain(){
  var d=doc;var rows=d.pods.map(function(p){var where=p.action!=='evict'?'':p.lost?'lost (a bare pod: nothing '+
    'recreates it)':p.node?p.node:'not placed';
    return el('tr',{'data-pod':ref(p)},el('td',{text:ref(p)}),el('td',{text:p.fromNode}),el('td',null,badge(p.action,
      ACTION[p.action]||'s-warn')),el('td',{text:p.controller?p.controller.kind+'/'+p.controller.name:'\u2014'}),
      el('td',{text:where}),el('td',null,p.pdbBlocked?'PodDisruptionBudget '+p.pdbBlocked+' refuses the eviction':'',
      p.message?el('pre',{cls:'fiterror',text:p.message}):null,p.emptyDir?el('div',{cls:'muted',
      text:'emptyDir data is lost'}):null));});
  if(d.refusals&&d.refusals.length)add(el('section',{cls:'box'},el('h2',{text:'Drain refuses '+
    d.refusals.map(function(r){return r.node;}).join(', ')}),list(d.refusals.map(function(r){return 'node '+r.node+
    ': '+r.message+' (cordoned; nothing on it is evicted)';}))));
  add(el('section',{cls:'box'},el('h2',{text:'Draining '+d.nodes.join(', ')}),el('div',{cls:'scroll'},table(['pod',
    'from','action','controller','lands on','why'],rows))));
  var blocked=d.pods.filter(function(p){return p.action==='blocked'||p.action==='refused'||(p.action==='evict'&&!p.node&&!p.lost);});
  if(blocked.length)add(el('section',{cls:'box'},el('h2',{text:'Blocked or stranded'}),list(blocked.map(function(p){
    return ref(p)+': '+(p.refusal?'cannot delete '+p.refusal:p.pdbBlocked?'PodDisruptionBudget '+p.pdbBlocked:p.message||'not placed');}))));
  if(d.pods.some(function(p){return p.attempts&&p.attempts.length;}))add(el('h2',{text:
    'Where the replacements land, and why'}));
  d.pods.forEach(function(p){if(p.attempts&&p.attempts.length){var last=p.attempts[p.attempts.length-1];
    add(podSection({pod:p,status:last.status,node:last.node,tie:last.tie,profile:d.profile,priority:'\u2014',
      attempts:p.attempts},ALL));}});
  add(notes(d.notes));}

({ScheduleReport:schedule,CheckReport:check,CapacityReport:capacity,DrainReport:drain})[doc.kind]();
var laid=LAID;LAID=null;laid.forEach(function(f){f();});
/* milliseconds from the start of navigation until drawn */
document.documentElement.setAttribute('data-render-ms',String(Math.round(performance.now())));
document.documentElement.setAttribute('data-rendered','1');
})();
"""
