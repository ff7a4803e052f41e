#!/bin/bash
# usage: .prof.sh <args...> ; prints cpu profile totals by url
rm -rf /tmp/profx; node --cpu-prof --cpu-prof-dir=/tmp/profx packages/chaind/bin/chaind.js "$@" >/dev/null 2>&1
cd /tmp/profx; node -e '
const fs=require("fs");const f=fs.readdirSync(".").filter(x=>x.endsWith(".cpuprofile"))[0];
const p=JSON.parse(fs.readFileSync(f));const byId=new Map(p.nodes.map(n=>[n.id,n]));
const dt=p.timeDeltas;const counts=new Map();for(let i=0;i<p.samples.length;i++){counts.set(p.samples[i],(counts.get(p.samples[i])||0)+dt[i]);}
const u=new Map();for(const [id,t] of counts){const n=byId.get(id);const k=n.callFrame.url.split("/").slice(-2).join("/")||n.callFrame.functionName;u.set(k,(u.get(k)||0)+t);}
const tot=[...u.values()].reduce((a,b)=>a+b,0);console.log("total ms",(tot/1000).toFixed(0),"non-idle",((tot-(u.get("(idle)")||0))/1000).toFixed(0));
[...u].sort((a,b)=>b[1]-a[1]).slice(0,8).forEach(([k,t])=>console.log("  ",(t/1000).toFixed(1),k));
const urls=new Set(p.nodes.map(n=>n.callFrame.url).filter(u=>u.includes("dist/")));let sz=0;for(const u of urls){try{sz+=fs.statSync(u.replace("file://","")).size}catch{}};console.log("  dist files",urls.size,"bytes",sz);'
