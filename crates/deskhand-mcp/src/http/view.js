// The live view: noVNC shows the desktop, view-only until this operator takes it over; the
// server, not this script, decides whether keys and pointer reach the desktop.
import RFB from './novnc/core/rfb.js';

const status = document.getElementById('status');
const take = document.getElementById('take');
const give = document.getElementById('give');
const base = location.pathname.replace(/view$/, '');
const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
// This page's own id, which tells the server its connection and buttons from another page's.
const viewer = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

const rfb = new RFB(document.getElementById('screen'), `${scheme}//${location.host}${base}websockify?viewer=${viewer}`, {
    credentials: { password: document.body.dataset.password },
    wsProtocols: ['binary'],
});
rfb.viewOnly = true;
// Reachable from the browser's console; setting its viewOnly lets nothing more through, since
// the server drops a watcher's input whatever the page sends.
window.liveView = rfb;
rfb.scaleViewport = true;
rfb.background = '#202020';

let connection = 'connecting…';
let hold = { held: false, input: false };

function show() {
    rfb.viewOnly = !hold.input;
    take.hidden = hold.held;
    give.hidden = !hold.held;
    document.body.dataset.held = String(hold.held);
    let who = 'watching: the agent has the desktop, your keys and pointer do not reach it';
    if (hold.held && hold.input) {
        who = `taken over by you (${hold.by}) since ${hold.since}: the agent is paused, your keys and pointer reach the desktop`;
    } else if (hold.held) {
        who = `taken over by ${hold.by} since ${hold.since}: the agent is paused; only their keys and pointer reach the desktop`;
    }
    status.textContent = `${connection} · ${who}`;
}

rfb.addEventListener('connect', () => {
    connection = 'live';
    document.body.dataset.view = 'connected';
    show();
});
rfb.addEventListener('disconnect', (event) => {
    connection = event.detail.clean
        ? 'disconnected: the desktop ended'
        : 'disconnected: the connection was lost; reload the page';
    document.body.dataset.view = 'disconnected';
    show();
});
rfb.addEventListener('securityfailure', (event) => {
    connection = `refused by the VNC server (${event.detail.reason || 'no reason given'}); reload the page`;
    document.body.dataset.view = 'refused';
    show();
});

async function send(what) {
    const answer = await fetch(`${base}${what}?viewer=${viewer}`, { method: what === 'state' ? 'GET' : 'POST', credentials: 'same-origin' });
    if (answer.ok) {
        hold = await answer.json();
    } else {
        connection = `${what} failed (${answer.status}): reload the page`;
    }
    show();
}

take.addEventListener('click', () => send('takeover'));
give.addEventListener('click', () => send('handback'));
send('state');
// Another operator may take over or hand back meanwhile.
setInterval(() => send('state'), 3000);
