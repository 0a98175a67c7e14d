// built from src/*.js sha256:be9c31f0ab4c053679e92b4eaf4d1907106d92c81dc349831ea3c8a1c8372293
// node_modules/d3-selection/dist/d3-selection.mjs
var e = "http://www.w3.org/1999/xhtml", t = {
	svg: "http://www.w3.org/2000/svg",
	xhtml: e,
	xlink: "http://www.w3.org/1999/xlink",
	xml: "http://www.w3.org/XML/1998/namespace",
	xmlns: "http://www.w3.org/2000/xmlns/"
};
function n(e) {
	var n = e += "", r = n.indexOf(":");
	return r >= 0 && (n = e.slice(0, r)) !== "xmlns" && (e = e.slice(r + 1)), t.hasOwnProperty(n) ? {
		space: t[n],
		local: e
	} : e;
}
function r(t) {
	return function() {
		var n = this.ownerDocument, r = this.namespaceURI;
		return r === e && n.documentElement.namespaceURI === e ? n.createElement(t) : n.createElementNS(r, t);
	};
}
function i(e) {
	return function() {
		return this.ownerDocument.createElementNS(e.space, e.local);
	};
}
function a(e) {
	var t = n(e);
	return (t.local ? i : r)(t);
}
function o() {}
function s(e) {
	return e == null ? o : function() {
		return this.querySelector(e);
	};
}
function c(e) {
	typeof e != "function" && (e = s(e));
	for (var t = this._groups, n = t.length, r = Array(n), i = 0; i < n; ++i) for (var a = t[i], o = a.length, c = r[i] = Array(o), l, u, d = 0; d < o; ++d) (l = a[d]) && (u = e.call(l, l.__data__, d, a)) && ("__data__" in l && (u.__data__ = l.__data__), c[d] = u);
	return new D(r, this._parents);
}
function l(e) {
	return e == null ? [] : Array.isArray(e) ? e : Array.from(e);
}
function u() {
	return [];
}
function d(e) {
	return e == null ? u : function() {
		return this.querySelectorAll(e);
	};
}
function f(e) {
	return function() {
		return l(e.apply(this, arguments));
	};
}
function p(e) {
	e = typeof e == "function" ? f(e) : d(e);
	for (var t = this._groups, n = t.length, r = [], i = [], a = 0; a < n; ++a) for (var o = t[a], s = o.length, c, l = 0; l < s; ++l) (c = o[l]) && (r.push(e.call(c, c.__data__, l, o)), i.push(c));
	return new D(r, i);
}
function m(e) {
	return function() {
		return this.matches(e);
	};
}
function h(e) {
	return function(t) {
		return t.matches(e);
	};
}
var g = Array.prototype.find;
function _(e) {
	return function() {
		return g.call(this.children, e);
	};
}
function v() {
	return this.firstElementChild;
}
function y(e) {
	return this.select(e == null ? v : _(typeof e == "function" ? e : h(e)));
}
var b = Array.prototype.filter;
function x() {
	return Array.from(this.children);
}
function S(e) {
	return function() {
		return b.call(this.children, e);
	};
}
function C(e) {
	return this.selectAll(e == null ? x : S(typeof e == "function" ? e : h(e)));
}
function w(e) {
	typeof e != "function" && (e = m(e));
	for (var t = this._groups, n = t.length, r = Array(n), i = 0; i < n; ++i) for (var a = t[i], o = a.length, s = r[i] = [], c, l = 0; l < o; ++l) (c = a[l]) && e.call(c, c.__data__, l, a) && s.push(c);
	return new D(r, this._parents);
}
function T(e) {
	return Array(e.length);
}
function E() {
	return new D(this._enter || this._groups.map(T), this._parents);
}
function ee(e, t) {
	this.ownerDocument = e.ownerDocument, this.namespaceURI = e.namespaceURI, this._next = null, this._parent = e, this.__data__ = t;
}
ee.prototype = {
	constructor: ee,
	appendChild: function(e) {
		return this._parent.insertBefore(e, this._next);
	},
	insertBefore: function(e, t) {
		return this._parent.insertBefore(e, t);
	},
	querySelector: function(e) {
		return this._parent.querySelector(e);
	},
	querySelectorAll: function(e) {
		return this._parent.querySelectorAll(e);
	}
};
function te(e) {
	return function() {
		return e;
	};
}
function ne(e, t, n, r, i, a) {
	for (var o = 0, s, c = t.length, l = a.length; o < l; ++o) (s = t[o]) ? (s.__data__ = a[o], r[o] = s) : n[o] = new ee(e, a[o]);
	for (; o < c; ++o) (s = t[o]) && (i[o] = s);
}
function re(e, t, n, r, i, a, o) {
	var s, c, l = /* @__PURE__ */ new Map(), u = t.length, d = a.length, f = Array(u), p;
	for (s = 0; s < u; ++s) (c = t[s]) && (f[s] = p = o.call(c, c.__data__, s, t) + "", l.has(p) ? i[s] = c : l.set(p, c));
	for (s = 0; s < d; ++s) p = o.call(e, a[s], s, a) + "", (c = l.get(p)) ? (r[s] = c, c.__data__ = a[s], l.delete(p)) : n[s] = new ee(e, a[s]);
	for (s = 0; s < u; ++s) (c = t[s]) && l.get(f[s]) === c && (i[s] = c);
}
function ie(e) {
	return e.__data__;
}
function ae(e, t) {
	if (!arguments.length) return Array.from(this, ie);
	var n = t ? re : ne, r = this._parents, i = this._groups;
	typeof e != "function" && (e = te(e));
	for (var a = i.length, o = Array(a), s = Array(a), c = Array(a), l = 0; l < a; ++l) {
		var u = r[l], d = i[l], f = d.length, p = oe(e.call(u, u && u.__data__, l, r)), m = p.length, h = s[l] = Array(m), g = o[l] = Array(m);
		n(u, d, h, g, c[l] = Array(f), p, t);
		for (var _ = 0, v = 0, y, b; _ < m; ++_) if (y = h[_]) {
			for (_ >= v && (v = _ + 1); !(b = g[v]) && ++v < m;);
			y._next = b || null;
		}
	}
	return o = new D(o, r), o._enter = s, o._exit = c, o;
}
function oe(e) {
	return typeof e == "object" && "length" in e ? e : Array.from(e);
}
function se() {
	return new D(this._exit || this._groups.map(T), this._parents);
}
function ce(e, t, n) {
	var r = this.enter(), i = this, a = this.exit();
	return typeof e == "function" ? (r = e(r), r &&= r.selection()) : r = r.append(e + ""), t != null && (i = t(i), i &&= i.selection()), n == null ? a.remove() : n(a), r && i ? r.merge(i).order() : i;
}
function le(e) {
	for (var t = e.selection ? e.selection() : e, n = this._groups, r = t._groups, i = n.length, a = r.length, o = Math.min(i, a), s = Array(i), c = 0; c < o; ++c) for (var l = n[c], u = r[c], d = l.length, f = s[c] = Array(d), p, m = 0; m < d; ++m) (p = l[m] || u[m]) && (f[m] = p);
	for (; c < i; ++c) s[c] = n[c];
	return new D(s, this._parents);
}
function ue() {
	for (var e = this._groups, t = -1, n = e.length; ++t < n;) for (var r = e[t], i = r.length - 1, a = r[i], o; --i >= 0;) (o = r[i]) && (a && o.compareDocumentPosition(a) ^ 4 && a.parentNode.insertBefore(o, a), a = o);
	return this;
}
function de(e) {
	e ||= fe;
	function t(t, n) {
		return t && n ? e(t.__data__, n.__data__) : !t - !n;
	}
	for (var n = this._groups, r = n.length, i = Array(r), a = 0; a < r; ++a) {
		for (var o = n[a], s = o.length, c = i[a] = Array(s), l, u = 0; u < s; ++u) (l = o[u]) && (c[u] = l);
		c.sort(t);
	}
	return new D(i, this._parents).order();
}
function fe(e, t) {
	return e < t ? -1 : e > t ? 1 : e >= t ? 0 : NaN;
}
function pe() {
	var e = arguments[0];
	return arguments[0] = this, e.apply(null, arguments), this;
}
function me() {
	return Array.from(this);
}
function he() {
	for (var e = this._groups, t = 0, n = e.length; t < n; ++t) for (var r = e[t], i = 0, a = r.length; i < a; ++i) {
		var o = r[i];
		if (o) return o;
	}
	return null;
}
function ge() {
	let e = 0;
	for (let t of this) ++e;
	return e;
}
function _e() {
	return !this.node();
}
function ve(e) {
	for (var t = this._groups, n = 0, r = t.length; n < r; ++n) for (var i = t[n], a = 0, o = i.length, s; a < o; ++a) (s = i[a]) && e.call(s, s.__data__, a, i);
	return this;
}
function ye(e) {
	return function() {
		this.removeAttribute(e);
	};
}
function be(e) {
	return function() {
		this.removeAttributeNS(e.space, e.local);
	};
}
function xe(e, t) {
	return function() {
		this.setAttribute(e, t);
	};
}
function Se(e, t) {
	return function() {
		this.setAttributeNS(e.space, e.local, t);
	};
}
function Ce(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? this.removeAttribute(e) : this.setAttribute(e, n);
	};
}
function we(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? this.removeAttributeNS(e.space, e.local) : this.setAttributeNS(e.space, e.local, n);
	};
}
function Te(e, t) {
	var r = n(e);
	if (arguments.length < 2) {
		var i = this.node();
		return r.local ? i.getAttributeNS(r.space, r.local) : i.getAttribute(r);
	}
	return this.each((t == null ? r.local ? be : ye : typeof t == "function" ? r.local ? we : Ce : r.local ? Se : xe)(r, t));
}
function Ee(e) {
	return e.ownerDocument && e.ownerDocument.defaultView || e.document && e || e.defaultView;
}
function De(e) {
	return function() {
		this.style.removeProperty(e);
	};
}
function Oe(e, t, n) {
	return function() {
		this.style.setProperty(e, t, n);
	};
}
function ke(e, t, n) {
	return function() {
		var r = t.apply(this, arguments);
		r == null ? this.style.removeProperty(e) : this.style.setProperty(e, r, n);
	};
}
function Ae(e, t, n) {
	return arguments.length > 1 ? this.each((t == null ? De : typeof t == "function" ? ke : Oe)(e, t, n ?? "")) : je(this.node(), e);
}
function je(e, t) {
	return e.style.getPropertyValue(t) || Ee(e).getComputedStyle(e, null).getPropertyValue(t);
}
function Me(e) {
	return function() {
		delete this[e];
	};
}
function Ne(e, t) {
	return function() {
		this[e] = t;
	};
}
function Pe(e, t) {
	return function() {
		var n = t.apply(this, arguments);
		n == null ? delete this[e] : this[e] = n;
	};
}
function Fe(e, t) {
	return arguments.length > 1 ? this.each((t == null ? Me : typeof t == "function" ? Pe : Ne)(e, t)) : this.node()[e];
}
function Ie(e) {
	return e.trim().split(/^|\s+/);
}
function Le(e) {
	return e.classList || new Re(e);
}
function Re(e) {
	this._node = e, this._names = Ie(e.getAttribute("class") || "");
}
Re.prototype = {
	add: function(e) {
		this._names.indexOf(e) < 0 && (this._names.push(e), this._node.setAttribute("class", this._names.join(" ")));
	},
	remove: function(e) {
		var t = this._names.indexOf(e);
		t >= 0 && (this._names.splice(t, 1), this._node.setAttribute("class", this._names.join(" ")));
	},
	contains: function(e) {
		return this._names.indexOf(e) >= 0;
	}
};
function ze(e, t) {
	for (var n = Le(e), r = -1, i = t.length; ++r < i;) n.add(t[r]);
}
function Be(e, t) {
	for (var n = Le(e), r = -1, i = t.length; ++r < i;) n.remove(t[r]);
}
function Ve(e) {
	return function() {
		ze(this, e);
	};
}
function He(e) {
	return function() {
		Be(this, e);
	};
}
function Ue(e, t) {
	return function() {
		(t.apply(this, arguments) ? ze : Be)(this, e);
	};
}
function We(e, t) {
	var n = Ie(e + "");
	if (arguments.length < 2) {
		for (var r = Le(this.node()), i = -1, a = n.length; ++i < a;) if (!r.contains(n[i])) return !1;
		return !0;
	}
	return this.each((typeof t == "function" ? Ue : t ? Ve : He)(n, t));
}
function Ge() {
	this.textContent = "";
}
function Ke(e) {
	return function() {
		this.textContent = e;
	};
}
function qe(e) {
	return function() {
		var t = e.apply(this, arguments);
		this.textContent = t ?? "";
	};
}
function Je(e) {
	return arguments.length ? this.each(e == null ? Ge : (typeof e == "function" ? qe : Ke)(e)) : this.node().textContent;
}
function Ye() {
	this.innerHTML = "";
}
function Xe(e) {
	return function() {
		this.innerHTML = e;
	};
}
function Ze(e) {
	return function() {
		var t = e.apply(this, arguments);
		this.innerHTML = t ?? "";
	};
}
function Qe(e) {
	return arguments.length ? this.each(e == null ? Ye : (typeof e == "function" ? Ze : Xe)(e)) : this.node().innerHTML;
}
function $e() {
	this.nextSibling && this.parentNode.appendChild(this);
}
function et() {
	return this.each($e);
}
function tt() {
	this.previousSibling && this.parentNode.insertBefore(this, this.parentNode.firstChild);
}
function nt() {
	return this.each(tt);
}
function rt(e) {
	var t = typeof e == "function" ? e : a(e);
	return this.select(function() {
		return this.appendChild(t.apply(this, arguments));
	});
}
function it() {
	return null;
}
function at(e, t) {
	var n = typeof e == "function" ? e : a(e), r = t == null ? it : typeof t == "function" ? t : s(t);
	return this.select(function() {
		return this.insertBefore(n.apply(this, arguments), r.apply(this, arguments) || null);
	});
}
function ot() {
	var e = this.parentNode;
	e && e.removeChild(this);
}
function st() {
	return this.each(ot);
}
function ct() {
	var e = this.cloneNode(!1), t = this.parentNode;
	return t ? t.insertBefore(e, this.nextSibling) : e;
}
function lt() {
	var e = this.cloneNode(!0), t = this.parentNode;
	return t ? t.insertBefore(e, this.nextSibling) : e;
}
function ut(e) {
	return this.select(e ? lt : ct);
}
function dt(e) {
	return arguments.length ? this.property("__data__", e) : this.node().__data__;
}
function ft(e) {
	return function(t) {
		e.call(this, t, this.__data__);
	};
}
function pt(e) {
	return e.trim().split(/^|\s+/).map(function(e) {
		var t = "", n = e.indexOf(".");
		return n >= 0 && (t = e.slice(n + 1), e = e.slice(0, n)), {
			type: e,
			name: t
		};
	});
}
function mt(e) {
	return function() {
		var t = this.__on;
		if (t) {
			for (var n = 0, r = -1, i = t.length, a; n < i; ++n) a = t[n], (!e.type || a.type === e.type) && a.name === e.name ? this.removeEventListener(a.type, a.listener, a.options) : t[++r] = a;
			++r ? t.length = r : delete this.__on;
		}
	};
}
function ht(e, t, n) {
	return function() {
		var r = this.__on, i, a = ft(t);
		if (r) {
			for (var o = 0, s = r.length; o < s; ++o) if ((i = r[o]).type === e.type && i.name === e.name) {
				this.removeEventListener(i.type, i.listener, i.options), this.addEventListener(i.type, i.listener = a, i.options = n), i.value = t;
				return;
			}
		}
		this.addEventListener(e.type, a, n), i = {
			type: e.type,
			name: e.name,
			value: t,
			listener: a,
			options: n
		}, r ? r.push(i) : this.__on = [i];
	};
}
function gt(e, t, n) {
	var r = pt(e + ""), i, a = r.length, o;
	if (arguments.length < 2) {
		var s = this.node().__on;
		if (s) {
			for (var c = 0, l = s.length, u; c < l; ++c) for (i = 0, u = s[c]; i < a; ++i) if ((o = r[i]).type === u.type && o.name === u.name) return u.value;
		}
	} else {
		for (s = t ? ht : mt, i = 0; i < a; ++i) this.each(s(r[i], t, n));
		return this;
	}
}
function _t(e, t, n) {
	var r = Ee(e), i = r.CustomEvent;
	typeof i == "function" ? i = new i(t, n) : (i = r.document.createEvent("Event"), n ? (i.initEvent(t, n.bubbles, n.cancelable), i.detail = n.detail) : i.initEvent(t, !1, !1)), e.dispatchEvent(i);
}
function vt(e, t) {
	return function() {
		return _t(this, e, t);
	};
}
function yt(e, t) {
	return function() {
		return _t(this, e, t.apply(this, arguments));
	};
}
function bt(e, t) {
	return this.each((typeof t == "function" ? yt : vt)(e, t));
}
function* xt() {
	for (var e = this._groups, t = 0, n = e.length; t < n; ++t) for (var r = e[t], i = 0, a = r.length, o; i < a; ++i) (o = r[i]) && (yield o);
}
var St = [null];
function D(e, t) {
	this._groups = e, this._parents = t;
}
function Ct() {
	return new D([[document.documentElement]], St);
}
function wt() {
	return this;
}
D.prototype = Ct.prototype = {
	constructor: D,
	select: c,
	selectAll: p,
	selectChild: y,
	selectChildren: C,
	filter: w,
	data: ae,
	enter: E,
	exit: se,
	join: ce,
	merge: le,
	selection: wt,
	order: ue,
	sort: de,
	call: pe,
	nodes: me,
	node: he,
	size: ge,
	empty: _e,
	each: ve,
	attr: Te,
	style: Ae,
	property: Fe,
	classed: We,
	text: Je,
	html: Qe,
	raise: et,
	lower: nt,
	append: rt,
	insert: at,
	remove: st,
	clone: ut,
	datum: dt,
	on: gt,
	dispatch: bt,
	[Symbol.iterator]: xt
};
function O(e) {
	return typeof e == "string" ? new D([[document.querySelector(e)]], [document.documentElement]) : new D([[e]], St);
}
var Tt = 0;
function Et() {
	return new Dt();
}
function Dt() {
	this._ = "@" + (++Tt).toString(36);
}
Dt.prototype = Et.prototype = {
	constructor: Dt,
	get: function(e) {
		for (var t = this._; !(t in e);) if (!(e = e.parentNode)) return;
		return e[t];
	},
	set: function(e, t) {
		return e[this._] = t;
	},
	remove: function(e) {
		return this._ in e && delete e[this._];
	},
	toString: function() {
		return this._;
	}
};
// src/parts.js
function Ot(e, t, n) {
	e.selectAll("div").data(t).join((e) => {
		let t = e.append("div");
		return t.append("span").attr("class", n), t.append("span"), t;
	}).call((e) => e.select(`.${n}`).text(([e]) => e)).call((e) => e.select("span:last-child").text(([, e]) => String(e)));
}
function kt(e, t, n, [r, i], a) {
	e.selectAll(`span.${n}`).data(t).join((e) => {
		let t = e.append("span").attr("class", n);
		return t.append("svg").attr("width", r).attr("height", i).attr("aria-hidden", "true"), t.append("span"), t;
	}).each(function(e) {
		let t = O(this).select("svg");
		t.selectAll("*").remove(), a(t, e), O(this).select("span").text(e.name);
	});
}
// src/history_tree.js
var k = 24, At = 18, jt = 12, Mt = 40, Nt = 6, A = 8, j = {
	ordinal: 0,
	lane: 1,
	parent: 2,
	parentLane: 3,
	kind: 4,
	line: 5,
	ring: 6,
	node: 7,
	tip: 8,
	id: 9,
	step: 10,
	source: 11,
	time: 12,
	bytes: 13,
	branch: 14
};
function Pt(e) {
	let { data: t, parentElement: n, setTriggerValue: r } = e, i = n.querySelector(":scope > .ht");
	i ||= Ft(n);
	let a = i.__view;
	a.pick = r, It(a, t);
}
function Ft(e) {
	let t = O(e).append("div").attr("class", "ht"), n = t.append("div").attr("class", "ht-main"), r = n.append("svg").attr("class", "ht-strip").attr("aria-hidden", "true");
	r.append("rect").attr("class", "ht-strip-ground"), r.append("g").attr("class", "ht-strip-marks"), r.append("rect").attr("class", "ht-strip-window");
	let i = n.append("div").attr("class", "ht-list"), a = i.append("div").attr("class", "ht-spacer"), o = a.append("svg").attr("class", "ht-graph").attr("aria-hidden", "true");
	o.append("g").attr("class", "ht-lines"), o.append("g").attr("class", "ht-points"), o.append("g").attr("class", "ht-rings");
	let s = {
		root: t,
		main: n,
		strip: r,
		list: i,
		spacer: a,
		graph: o,
		rows: a.append("div").attr("class", "ht-rows").attr("role", "listbox"),
		legend: t.append("div").attr("class", "ht-legend"),
		tooltip: t.append("div").attr("class", "ht-tooltip").attr("role", "tooltip").style("display", "none"),
		data: null,
		frame: 0,
		pick: null
	};
	t.node().__view = s, i.on("scroll", () => {
		Ht(s), s.frame ||= requestAnimationFrame(() => {
			s.frame = 0, Rt(s);
		});
	});
	let c = (e) => {
		let t = s.strip.node().getBoundingClientRect(), n = Math.min(Math.max((e.clientY - t.top) / t.height, 0), 1), r = s.list.node();
		r.scrollTop = n * s.data.rows.length * k - r.clientHeight / 2;
	};
	return r.on("pointerdown", (e) => {
		e.preventDefault(), r.node().setPointerCapture(e.pointerId), c(e), r.on("pointermove", c);
	}), r.on("pointerup pointercancel", (e) => {
		r.node().releasePointerCapture(e.pointerId), r.on("pointermove", null);
	}), t.node();
}
function It(e, t) {
	let n = e.data === null;
	e.data = t;
	let r = t.rows.length, i = Math.min(r, t.visible) * k, a = r > t.visible;
	e.graphWidth = jt + Math.max(t.lanes - 1, 0) * At + jt, e.root.classed("ht-pickable", t.pickable), e.list.style("height", `${i}px`), e.spacer.style("height", `${r * k}px`), e.graph.attr("width", e.graphWidth), e.strip.style("display", a ? null : "none").attr("width", Mt).attr("height", i), Gt(e, i), qt(e);
	let o = e.list.node(), s = r - t.at, c = o.scrollTop / k, l = s >= c + 1 && s <= c + t.visible - 2;
	(n || !l) && (o.scrollTop = Math.max(s - t.visible / 2 + .5, 0) * k), Rt(e);
}
var Lt = (e) => jt + e * At;
function Rt(e) {
	let { data: t } = e, n = t.rows, r = n.length, i = e.list.node(), a = Math.max(Math.floor(i.scrollTop / k) - Nt, 0), o = Math.min(Math.ceil((i.scrollTop + i.clientHeight) / k) + Nt, r - 1), s = (e) => r - e, c = (e) => (e - a) * k + k / 2, l = [];
	for (let e = a; e <= o; e++) l.push(n[r - 1 - e]);
	let u = [];
	for (let e of n) {
		let t = e[j.parent];
		if (t === null) continue;
		let n = s(e[j.ordinal]), r = s(t);
		n > o || r < a || u.push(e);
	}
	u.sort((e, t) => (e[j.line] > 0) - (t[j.line] > 0)), e.graph.style("top", `${a * k}px`).attr("height", (o - a + 1) * k), e.graph.select(".ht-lines").selectAll("path").data(u, (e) => e[j.id]).join("path").attr("d", (e) => {
		let t = s(e[j.ordinal]), n = s(e[j.parent]), r = e[j.parentLane] === e[j.lane] ? c(n) : c(n) - k / 2;
		return `M${Lt(e[j.lane])},${c(t)}V${r}L${Lt(e[j.parentLane])},${c(n)}`;
	}).attr("stroke", (e) => t.lines[e[j.line]][1]), e.graph.select(".ht-points").selectAll("circle").data(l, (e) => e[j.id]).join("circle").attr("data-id", (e) => e[j.id]).attr("cx", (e) => Lt(e[j.lane])).attr("cy", (e) => c(s(e[j.ordinal]))).attr("r", 5.5).attr("fill", (e) => t.kinds[e[j.kind]][1]), e.graph.select(".ht-rings").selectAll("path").data(l.filter((e) => e[j.ring] !== null), (e) => e[j.id]).join("path").attr("d", (e) => Bt(t.rings[e[j.ring]][1], Lt(e[j.lane]), c(s(e[j.ordinal])))).attr("stroke", (e) => t.rings[e[j.ring]][2]), e.rows.selectAll("div.ht-row").data(l, (e) => e[j.id]).join((e) => {
		let t = e.append("div").attr("class", "ht-row");
		return t.append("span").attr("class", "ht-name"), t.append("span").attr("class", "ht-tip"), t;
	}).style("top", (e) => `${s(e[j.ordinal]) * k}px`).style("padding-left", `${e.graphWidth}px`).attr("role", "option").attr("aria-label", (e) => zt(e)).attr("aria-selected", (e) => String(e[j.id] === t.selected)).attr("data-id", (e) => e[j.id]).classed("ht-selected", (e) => e[j.id] === t.selected).call((e) => e.select(".ht-name").text((e) => zt(e))).call((e) => e.select(".ht-tip").text((e) => e[j.tip] ?? "")).on("click", (n, r) => {
		t.pickable && e.pick("pick", r[j.id]);
	}).on("pointerenter", (t, n) => {
		t.pointerType !== "touch" && Vt(e, t.currentTarget, n);
	}).on("pointerleave", () => Ht(e)), Kt(e);
}
var zt = (e) => `#${e[j.ordinal]} ${e[j.node]}`;
function Bt(e, t, n) {
	if (e === "diamond") return `M${t},${n - 9}L${t + 9},${n}L${t},${n + 9}L${t - 9},${n}Z`;
	let r = 8.5;
	return `M${t - r},${n}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
}
function Vt(e, t, n) {
	let r = e.data, i = [
		["checkpoint", zt(n)],
		["id", n[j.id]],
		["node", n[j.node]],
		["step", n[j.step] ?? "?"],
		["source", n[j.source]],
		["time", n[j.time]],
		["stored bytes", n[j.bytes].toLocaleString("en-US")],
		["its branch", r.branches[n[j.branch]]]
	];
	Ot(e.tooltip, i, "ht-tooltip-key"), e.tooltip.style("display", null), Wt(e, t);
}
function Ht(e) {
	e.tooltip.style("display", "none");
}
function Ut(e) {
	let t = e.closest("[data-testid=\"stMain\"]"), n = t ? t.getBoundingClientRect() : {
		left: 0,
		right: 1e400
	};
	return {
		left: Math.max(n.left, 0),
		right: Math.min(n.right, document.documentElement.clientWidth)
	};
}
function Wt(e, t) {
	let n = e.tooltip.node(), r = e.root.node().getBoundingClientRect(), i = t.getBoundingClientRect(), a = n.offsetWidth, o = n.offsetHeight, s = Ut(e.root.node()), c = i.top - r.top, l = Math.max(Math.min(c, window.innerHeight - r.top - o - A), c + i.height - o), u, d = l;
	r.right + A + a <= s.right ? u = r.width + A : r.left - A - a >= s.left ? u = -a - A : (u = Math.max(Math.min(e.graphWidth, s.right - r.left - a - A), s.left - r.left, 0), d = i.top - o - A >= 0 ? c - o - A : r.height + A), e.tooltip.style("left", `${u}px`).style("top", `${d}px`);
}
function Gt(e, t) {
	let { data: n } = e, r = n.rows.length, i = [];
	if (r > n.visible) {
		let e = /* @__PURE__ */ new Map();
		for (let i of n.rows) {
			let a = Math.min(i[j.lane], 5), o = Math.floor((r - i[j.ordinal]) / r * t);
			e.has(a) || e.set(a, /* @__PURE__ */ new Map());
			let s = e.get(a), c = i[j.kind], l = s.get(o);
			(l === void 0 || n.kinds[c][2] < n.kinds[l][2]) && s.set(o, c);
		}
		for (let [t, n] of e) {
			let e = [...n.keys()].sort((e, t) => e - t), r = null, a = null, o = null;
			for (let s of e) {
				let e = n.get(s);
				r !== null && s === a + 1 && e === o ? a = s : (r !== null && i.push({
					lane: t,
					start: r,
					end: a,
					kind: o
				}), r = s, a = s, o = e);
			}
			r !== null && i.push({
				lane: t,
				start: r,
				end: a,
				kind: o
			});
		}
	}
	e.strip.select(".ht-strip-ground").attr("x", 2).attr("y", 0).attr("width", 36).attr("height", t).attr("rx", 3), e.strip.select(".ht-strip-marks").selectAll("rect").data(i).join("rect").attr("x", (e) => 7 + e.lane * 5).attr("width", 4).attr("y", (e) => e.start).attr("height", (e) => e.end - e.start + 1).attr("fill", (e) => n.kinds[e.kind][1]);
}
function Kt(e) {
	let t = e.data.rows.length;
	if (t <= e.data.visible) return;
	let n = e.list.node(), r = n.clientHeight, i = n.scrollTop / k / t * r, a = Math.max(r / k / t * r, 3);
	e.strip.select(".ht-strip-window").attr("x", 1).attr("width", 38).attr("y", Math.min(i, r - a)).attr("height", a);
}
function qt(e) {
	let { data: t } = e, n = [
		["checkpoints", t.kinds.map(([e, t]) => ({
			name: e,
			colour: t,
			shape: "dot"
		}))],
		["lines", [...t.lines.slice(1), t.lines[0]].filter(([, , e]) => e).map(([e, t]) => ({
			name: e,
			colour: t,
			shape: "line"
		}))],
		["marks", t.rings.filter(([, , , e]) => e).map(([e, t, n]) => ({
			name: e,
			colour: n,
			shape: t
		}))]
	].filter(([, e]) => e.length);
	e.legend.selectAll("div.ht-legend-group").data(n).join((e) => {
		let t = e.append("div").attr("class", "ht-legend-group");
		return t.append("span").attr("class", "ht-legend-title"), t;
	}).call((e) => e.select(".ht-legend-title").text(([e]) => e)).each(function([, e]) {
		kt(O(this), e, "ht-legend-entry", [16, 16], (e, t) => {
			t.shape === "dot" ? e.append("circle").attr("cx", 8).attr("cy", 8).attr("r", 5.5).attr("fill", t.colour) : t.shape === "line" ? e.append("path").attr("d", "M1,8H15").attr("stroke", t.colour).attr("stroke-width", 2) : e.append("path").attr("class", "ht-ring").attr("stroke", t.colour).attr("d", t.shape === "diamond" ? "M8,1.5L14.5,8L8,14.5L1.5,8Z" : "M2,8a6,6 0 1,0 12,0a6,6 0 1,0 -12,0");
		});
	});
}
// node_modules/d3-axis/dist/d3-axis.mjs
function Jt(e) {
	return e;
}
var Yt = 1, Xt = 2, Zt = 3, Qt = 4, $t = 1e-6;
function en(e) {
	return "translate(" + e + ",0)";
}
function tn(e) {
	return "translate(0," + e + ")";
}
function nn(e) {
	return (t) => +e(t);
}
function rn(e, t) {
	return t = Math.max(0, e.bandwidth() - t * 2) / 2, e.round() && (t = Math.round(t)), (n) => +e(n) + t;
}
function an() {
	return !this.__axis;
}
function on(e, t) {
	var n = [], r = null, i = null, a = 6, o = 6, s = 3, c = typeof window < "u" && window.devicePixelRatio > 1 ? 0 : .5, l = e === Yt || e === Qt ? -1 : 1, u = e === Qt || e === Xt ? "x" : "y", d = e === Yt || e === Zt ? en : tn;
	function f(f) {
		var p = r ?? (t.ticks ? t.ticks.apply(t, n) : t.domain()), m = i ?? (t.tickFormat ? t.tickFormat.apply(t, n) : Jt), h = Math.max(a, 0) + s, g = t.range(), _ = +g[0] + c, v = +g[g.length - 1] + c, y = (t.bandwidth ? rn : nn)(t.copy(), c), b = f.selection ? f.selection() : f, x = b.selectAll(".domain").data([null]), S = b.selectAll(".tick").data(p, t).order(), C = S.exit(), w = S.enter().append("g").attr("class", "tick"), T = S.select("line"), E = S.select("text");
		x = x.merge(x.enter().insert("path", ".tick").attr("class", "domain").attr("stroke", "currentColor")), S = S.merge(w), T = T.merge(w.append("line").attr("stroke", "currentColor").attr(u + "2", l * a)), E = E.merge(w.append("text").attr("fill", "currentColor").attr(u, l * h).attr("dy", e === Yt ? "0em" : e === Zt ? "0.71em" : "0.32em")), f !== b && (x = x.transition(f), S = S.transition(f), T = T.transition(f), E = E.transition(f), C = C.transition(f).attr("opacity", $t).attr("transform", function(e) {
			return isFinite(e = y(e)) ? d(e + c) : this.getAttribute("transform");
		}), w.attr("opacity", $t).attr("transform", function(e) {
			var t = this.parentNode.__axis;
			return d((t && isFinite(t = t(e)) ? t : y(e)) + c);
		})), C.remove(), x.attr("d", e === Qt || e === Xt ? o ? "M" + l * o + "," + _ + "H" + c + "V" + v + "H" + l * o : "M" + c + "," + _ + "V" + v : o ? "M" + _ + "," + l * o + "V" + c + "H" + v + "V" + l * o : "M" + _ + "," + c + "H" + v), S.attr("opacity", 1).attr("transform", function(e) {
			return d(y(e) + c);
		}), T.attr(u + "2", l * a), E.attr(u, l * h).text(m), b.filter(an).attr("fill", "none").attr("font-size", 10).attr("font-family", "sans-serif").attr("text-anchor", e === Xt ? "start" : e === Qt ? "end" : "middle"), b.each(function() {
			this.__axis = y;
		});
	}
	return f.scale = function(e) {
		return arguments.length ? (t = e, f) : t;
	}, f.ticks = function() {
		return n = Array.from(arguments), f;
	}, f.tickArguments = function(e) {
		return arguments.length ? (n = e == null ? [] : Array.from(e), f) : n.slice();
	}, f.tickValues = function(e) {
		return arguments.length ? (r = e == null ? null : Array.from(e), f) : r && r.slice();
	}, f.tickFormat = function(e) {
		return arguments.length ? (i = e, f) : i;
	}, f.tickSize = function(e) {
		return arguments.length ? (a = o = +e, f) : a;
	}, f.tickSizeInner = function(e) {
		return arguments.length ? (a = +e, f) : a;
	}, f.tickSizeOuter = function(e) {
		return arguments.length ? (o = +e, f) : o;
	}, f.tickPadding = function(e) {
		return arguments.length ? (s = +e, f) : s;
	}, f.offset = function(e) {
		return arguments.length ? (c = +e, f) : c;
	}, f;
}
function sn(e) {
	return on(Zt, e);
}
// node_modules/d3-array/dist/d3-array.mjs
function cn(e, t) {
	return e == null || t == null ? NaN : e < t ? -1 : e > t ? 1 : e >= t ? 0 : NaN;
}
function ln(e, t) {
	return e == null || t == null ? NaN : t < e ? -1 : t > e ? 1 : t >= e ? 0 : NaN;
}
function un(e) {
	let t, n, r;
	e.length === 2 ? (t = e === cn || e === ln ? e : dn, n = e, r = e) : (t = cn, n = (t, n) => cn(e(t), n), r = (t, n) => e(t) - n);
	function i(e, r, i = 0, a = e.length) {
		if (i < a) {
			if (t(r, r) !== 0) return a;
			do {
				let t = i + a >>> 1;
				n(e[t], r) < 0 ? i = t + 1 : a = t;
			} while (i < a);
		}
		return i;
	}
	function a(e, r, i = 0, a = e.length) {
		if (i < a) {
			if (t(r, r) !== 0) return a;
			do {
				let t = i + a >>> 1;
				n(e[t], r) <= 0 ? i = t + 1 : a = t;
			} while (i < a);
		}
		return i;
	}
	function o(e, t, n = 0, a = e.length) {
		let o = i(e, t, n, a - 1);
		return o > n && r(e[o - 1], t) > -r(e[o], t) ? o - 1 : o;
	}
	return {
		left: i,
		center: o,
		right: a
	};
}
function dn() {
	return 0;
}
function fn(e) {
	return e === null ? NaN : +e;
}
var pn = un(cn), mn = pn.right;
pn.left, un(fn).center, Array.prototype.slice;
var hn = Math.sqrt(50), gn = Math.sqrt(10), _n = Math.sqrt(2);
function vn(e, t, n) {
	let r = (t - e) / Math.max(0, n), i = Math.floor(Math.log10(r)), a = r / 10 ** i, o = a >= hn ? 10 : a >= gn ? 5 : a >= _n ? 2 : 1, s, c, l;
	return i < 0 ? (l = 10 ** -i / o, s = Math.round(e * l), c = Math.round(t * l), s / l < e && ++s, c / l > t && --c, l = -l) : (l = 10 ** i * o, s = Math.round(e / l), c = Math.round(t / l), s * l < e && ++s, c * l > t && --c), c < s && .5 <= n && n < 2 ? vn(e, t, n * 2) : [
		s,
		c,
		l
	];
}
function yn(e, t, n) {
	if (t = +t, e = +e, n = +n, !(n > 0)) return [];
	if (e === t) return [e];
	let r = t < e, [i, a, o] = r ? vn(t, e, n) : vn(e, t, n);
	if (!(a >= i)) return [];
	let s = a - i + 1, c = Array(s);
	if (r) {
		if (o < 0) for (let e = 0; e < s; ++e) c[e] = (a - e) / -o;
		else for (let e = 0; e < s; ++e) c[e] = (a - e) * o;
	} else if (o < 0) for (let e = 0; e < s; ++e) c[e] = (i + e) / -o;
	else for (let e = 0; e < s; ++e) c[e] = (i + e) * o;
	return c;
}
function bn(e, t, n) {
	return t = +t, e = +e, n = +n, vn(e, t, n)[2];
}
function xn(e, t, n) {
	t = +t, e = +e, n = +n;
	let r = t < e, i = r ? bn(t, e, n) : bn(e, t, n);
	return (r ? -1 : 1) * (i < 0 ? 1 / -i : i);
}
// node_modules/d3-color/dist/d3-color.mjs
function M(e, t, n) {
	e.prototype = t.prototype = n, n.constructor = e;
}
function N(e, t) {
	var n = Object.create(e.prototype);
	for (var r in t) n[r] = t[r];
	return n;
}
function P() {}
var F = .7, I = 1 / F, L = "\\s*([+-]?\\d+)\\s*", Sn = "\\s*([+-]?(?:\\d*\\.)?\\d+(?:[eE][+-]?\\d+)?)\\s*", R = "\\s*([+-]?(?:\\d*\\.)?\\d+(?:[eE][+-]?\\d+)?)%\\s*", Cn = /^#([0-9a-f]{3,8})$/, wn = RegExp(`^rgb\\(${L},${L},${L}\\)$`), Tn = RegExp(`^rgb\\(${R},${R},${R}\\)$`), En = RegExp(`^rgba\\(${L},${L},${L},${Sn}\\)$`), Dn = RegExp(`^rgba\\(${R},${R},${R},${Sn}\\)$`), On = RegExp(`^hsl\\(${Sn},${R},${R}\\)$`), kn = RegExp(`^hsla\\(${Sn},${R},${R},${Sn}\\)$`), An = {
	aliceblue: 0xf0f8ff,
	antiquewhite: 0xfaebd7,
	aqua: 65535,
	aquamarine: 8388564,
	azure: 0xf0ffff,
	beige: 0xf5f5dc,
	bisque: 0xffe4c4,
	black: 0,
	blanchedalmond: 0xffebcd,
	blue: 255,
	blueviolet: 9055202,
	brown: 0xa52a2a,
	burlywood: 0xdeb887,
	cadetblue: 6266528,
	chartreuse: 8388352,
	chocolate: 0xd2691e,
	coral: 0xff7f50,
	cornflowerblue: 6591981,
	cornsilk: 0xfff8dc,
	crimson: 0xdc143c,
	cyan: 65535,
	darkblue: 139,
	darkcyan: 35723,
	darkgoldenrod: 0xb8860b,
	darkgray: 0xa9a9a9,
	darkgreen: 25600,
	darkgrey: 0xa9a9a9,
	darkkhaki: 0xbdb76b,
	darkmagenta: 9109643,
	darkolivegreen: 5597999,
	darkorange: 0xff8c00,
	darkorchid: 0x9932cc,
	darkred: 9109504,
	darksalmon: 0xe9967a,
	darkseagreen: 9419919,
	darkslateblue: 4734347,
	darkslategray: 3100495,
	darkslategrey: 3100495,
	darkturquoise: 52945,
	darkviolet: 9699539,
	deeppink: 0xff1493,
	deepskyblue: 49151,
	dimgray: 6908265,
	dimgrey: 6908265,
	dodgerblue: 2003199,
	firebrick: 0xb22222,
	floralwhite: 0xfffaf0,
	forestgreen: 2263842,
	fuchsia: 0xff00ff,
	gainsboro: 0xdcdcdc,
	ghostwhite: 0xf8f8ff,
	gold: 0xffd700,
	goldenrod: 0xdaa520,
	gray: 8421504,
	green: 32768,
	greenyellow: 0xadff2f,
	grey: 8421504,
	honeydew: 0xf0fff0,
	hotpink: 0xff69b4,
	indianred: 0xcd5c5c,
	indigo: 4915330,
	ivory: 0xfffff0,
	khaki: 0xf0e68c,
	lavender: 0xe6e6fa,
	lavenderblush: 0xfff0f5,
	lawngreen: 8190976,
	lemonchiffon: 0xfffacd,
	lightblue: 0xadd8e6,
	lightcoral: 0xf08080,
	lightcyan: 0xe0ffff,
	lightgoldenrodyellow: 0xfafad2,
	lightgray: 0xd3d3d3,
	lightgreen: 9498256,
	lightgrey: 0xd3d3d3,
	lightpink: 0xffb6c1,
	lightsalmon: 0xffa07a,
	lightseagreen: 2142890,
	lightskyblue: 8900346,
	lightslategray: 7833753,
	lightslategrey: 7833753,
	lightsteelblue: 0xb0c4de,
	lightyellow: 0xffffe0,
	lime: 65280,
	limegreen: 3329330,
	linen: 0xfaf0e6,
	magenta: 0xff00ff,
	maroon: 8388608,
	mediumaquamarine: 6737322,
	mediumblue: 205,
	mediumorchid: 0xba55d3,
	mediumpurple: 9662683,
	mediumseagreen: 3978097,
	mediumslateblue: 8087790,
	mediumspringgreen: 64154,
	mediumturquoise: 4772300,
	mediumvioletred: 0xc71585,
	midnightblue: 1644912,
	mintcream: 0xf5fffa,
	mistyrose: 0xffe4e1,
	moccasin: 0xffe4b5,
	navajowhite: 0xffdead,
	navy: 128,
	oldlace: 0xfdf5e6,
	olive: 8421376,
	olivedrab: 7048739,
	orange: 0xffa500,
	orangered: 0xff4500,
	orchid: 0xda70d6,
	palegoldenrod: 0xeee8aa,
	palegreen: 0x98fb98,
	paleturquoise: 0xafeeee,
	palevioletred: 0xdb7093,
	papayawhip: 0xffefd5,
	peachpuff: 0xffdab9,
	peru: 0xcd853f,
	pink: 0xffc0cb,
	plum: 0xdda0dd,
	powderblue: 0xb0e0e6,
	purple: 8388736,
	rebeccapurple: 6697881,
	red: 0xff0000,
	rosybrown: 0xbc8f8f,
	royalblue: 4286945,
	saddlebrown: 9127187,
	salmon: 0xfa8072,
	sandybrown: 0xf4a460,
	seagreen: 3050327,
	seashell: 0xfff5ee,
	sienna: 0xa0522d,
	silver: 0xc0c0c0,
	skyblue: 8900331,
	slateblue: 6970061,
	slategray: 7372944,
	slategrey: 7372944,
	snow: 0xfffafa,
	springgreen: 65407,
	steelblue: 4620980,
	tan: 0xd2b48c,
	teal: 32896,
	thistle: 0xd8bfd8,
	tomato: 0xff6347,
	turquoise: 4251856,
	violet: 0xee82ee,
	wheat: 0xf5deb3,
	white: 0xffffff,
	whitesmoke: 0xf5f5f5,
	yellow: 0xffff00,
	yellowgreen: 0x9acd32
};
M(P, z, {
	copy(e) {
		return Object.assign(new this.constructor(), this, e);
	},
	displayable() {
		return this.rgb().displayable();
	},
	hex: jn,
	formatHex: jn,
	formatHex8: Mn,
	formatHsl: Nn,
	formatRgb: Pn,
	toString: Pn
});
function jn() {
	return this.rgb().formatHex();
}
function Mn() {
	return this.rgb().formatHex8();
}
function Nn() {
	return Wn(this).formatHsl();
}
function Pn() {
	return this.rgb().formatRgb();
}
function z(e) {
	var t, n;
	return e = (e + "").trim().toLowerCase(), (t = Cn.exec(e)) ? (n = t[1].length, t = parseInt(t[1], 16), n === 6 ? Fn(t) : n === 3 ? new B(t >> 8 & 15 | t >> 4 & 240, t >> 4 & 15 | t & 240, (t & 15) << 4 | t & 15, 1) : n === 8 ? In(t >> 24 & 255, t >> 16 & 255, t >> 8 & 255, (t & 255) / 255) : n === 4 ? In(t >> 12 & 15 | t >> 8 & 240, t >> 8 & 15 | t >> 4 & 240, t >> 4 & 15 | t & 240, ((t & 15) << 4 | t & 15) / 255) : null) : (t = wn.exec(e)) ? new B(t[1], t[2], t[3], 1) : (t = Tn.exec(e)) ? new B(t[1] * 255 / 100, t[2] * 255 / 100, t[3] * 255 / 100, 1) : (t = En.exec(e)) ? In(t[1], t[2], t[3], t[4]) : (t = Dn.exec(e)) ? In(t[1] * 255 / 100, t[2] * 255 / 100, t[3] * 255 / 100, t[4]) : (t = On.exec(e)) ? Un(t[1], t[2] / 100, t[3] / 100, 1) : (t = kn.exec(e)) ? Un(t[1], t[2] / 100, t[3] / 100, t[4]) : An.hasOwnProperty(e) ? Fn(An[e]) : e === "transparent" ? new B(NaN, NaN, NaN, 0) : null;
}
function Fn(e) {
	return new B(e >> 16 & 255, e >> 8 & 255, e & 255, 1);
}
function In(e, t, n, r) {
	return r <= 0 && (e = t = n = NaN), new B(e, t, n, r);
}
function Ln(e) {
	return e instanceof P || (e = z(e)), e ? (e = e.rgb(), new B(e.r, e.g, e.b, e.opacity)) : new B();
}
function Rn(e, t, n, r) {
	return arguments.length === 1 ? Ln(e) : new B(e, t, n, r ?? 1);
}
function B(e, t, n, r) {
	this.r = +e, this.g = +t, this.b = +n, this.opacity = +r;
}
M(B, Rn, N(P, {
	brighter(e) {
		return e = e == null ? I : I ** +e, new B(this.r * e, this.g * e, this.b * e, this.opacity);
	},
	darker(e) {
		return e = e == null ? F : F ** +e, new B(this.r * e, this.g * e, this.b * e, this.opacity);
	},
	rgb() {
		return this;
	},
	clamp() {
		return new B(V(this.r), V(this.g), V(this.b), Hn(this.opacity));
	},
	displayable() {
		return -.5 <= this.r && this.r < 255.5 && -.5 <= this.g && this.g < 255.5 && -.5 <= this.b && this.b < 255.5 && 0 <= this.opacity && this.opacity <= 1;
	},
	hex: zn,
	formatHex: zn,
	formatHex8: Bn,
	formatRgb: Vn,
	toString: Vn
}));
function zn() {
	return `#${H(this.r)}${H(this.g)}${H(this.b)}`;
}
function Bn() {
	return `#${H(this.r)}${H(this.g)}${H(this.b)}${H((isNaN(this.opacity) ? 1 : this.opacity) * 255)}`;
}
function Vn() {
	let e = Hn(this.opacity);
	return `${e === 1 ? "rgb(" : "rgba("}${V(this.r)}, ${V(this.g)}, ${V(this.b)}${e === 1 ? ")" : `, ${e})`}`;
}
function Hn(e) {
	return isNaN(e) ? 1 : Math.max(0, Math.min(1, e));
}
function V(e) {
	return Math.max(0, Math.min(255, Math.round(e) || 0));
}
function H(e) {
	return e = V(e), (e < 16 ? "0" : "") + e.toString(16);
}
function Un(e, t, n, r) {
	return r <= 0 ? e = t = n = NaN : n <= 0 || n >= 1 ? e = t = NaN : t <= 0 && (e = NaN), new U(e, t, n, r);
}
function Wn(e) {
	if (e instanceof U) return new U(e.h, e.s, e.l, e.opacity);
	if (e instanceof P || (e = z(e)), !e) return new U();
	if (e instanceof U) return e;
	e = e.rgb();
	var t = e.r / 255, n = e.g / 255, r = e.b / 255, i = Math.min(t, n, r), a = Math.max(t, n, r), o = NaN, s = a - i, c = (a + i) / 2;
	return s ? (o = t === a ? (n - r) / s + (n < r) * 6 : n === a ? (r - t) / s + 2 : (t - n) / s + 4, s /= c < .5 ? a + i : 2 - a - i, o *= 60) : s = c > 0 && c < 1 ? 0 : o, new U(o, s, c, e.opacity);
}
function Gn(e, t, n, r) {
	return arguments.length === 1 ? Wn(e) : new U(e, t, n, r ?? 1);
}
function U(e, t, n, r) {
	this.h = +e, this.s = +t, this.l = +n, this.opacity = +r;
}
M(U, Gn, N(P, {
	brighter(e) {
		return e = e == null ? I : I ** +e, new U(this.h, this.s, this.l * e, this.opacity);
	},
	darker(e) {
		return e = e == null ? F : F ** +e, new U(this.h, this.s, this.l * e, this.opacity);
	},
	rgb() {
		var e = this.h % 360 + (this.h < 0) * 360, t = isNaN(e) || isNaN(this.s) ? 0 : this.s, n = this.l, r = n + (n < .5 ? n : 1 - n) * t, i = 2 * n - r;
		return new B(Jn(e >= 240 ? e - 240 : e + 120, i, r), Jn(e, i, r), Jn(e < 120 ? e + 240 : e - 120, i, r), this.opacity);
	},
	clamp() {
		return new U(Kn(this.h), qn(this.s), qn(this.l), Hn(this.opacity));
	},
	displayable() {
		return (0 <= this.s && this.s <= 1 || isNaN(this.s)) && 0 <= this.l && this.l <= 1 && 0 <= this.opacity && this.opacity <= 1;
	},
	formatHsl() {
		let e = Hn(this.opacity);
		return `${e === 1 ? "hsl(" : "hsla("}${Kn(this.h)}, ${qn(this.s) * 100}%, ${qn(this.l) * 100}%${e === 1 ? ")" : `, ${e})`}`;
	}
}));
function Kn(e) {
	return e = (e || 0) % 360, e < 0 ? e + 360 : e;
}
function qn(e) {
	return Math.max(0, Math.min(1, e || 0));
}
function Jn(e, t, n) {
	return (e < 60 ? t + (n - t) * e / 60 : e < 180 ? n : e < 240 ? t + (n - t) * (240 - e) / 60 : t) * 255;
}
var Yn = Math.PI / 180, Xn = 180 / Math.PI, Zn = 18, Qn = .96422, $n = 1, er = .82521, tr = 4 / 29, W = 6 / 29, nr = 3 * W * W, rr = W * W * W;
function ir(e) {
	if (e instanceof G) return new G(e.l, e.a, e.b, e.opacity);
	if (e instanceof K) return fr(e);
	e instanceof B || (e = Ln(e));
	var t = lr(e.r), n = lr(e.g), r = lr(e.b), i = or((.2225045 * t + .7168786 * n + .0606169 * r) / $n), a, o;
	return t === n && n === r ? a = o = i : (a = or((.4360747 * t + .3850649 * n + .1430804 * r) / Qn), o = or((.0139322 * t + .0971045 * n + .7141733 * r) / er)), new G(116 * i - 16, 500 * (a - i), 200 * (i - o), e.opacity);
}
function ar(e, t, n, r) {
	return arguments.length === 1 ? ir(e) : new G(e, t, n, r ?? 1);
}
function G(e, t, n, r) {
	this.l = +e, this.a = +t, this.b = +n, this.opacity = +r;
}
M(G, ar, N(P, {
	brighter(e) {
		return new G(this.l + Zn * (e ?? 1), this.a, this.b, this.opacity);
	},
	darker(e) {
		return new G(this.l - Zn * (e ?? 1), this.a, this.b, this.opacity);
	},
	rgb() {
		var e = (this.l + 16) / 116, t = isNaN(this.a) ? e : e + this.a / 500, n = isNaN(this.b) ? e : e - this.b / 200;
		return t = Qn * sr(t), e = $n * sr(e), n = er * sr(n), new B(cr(3.1338561 * t - 1.6168667 * e - .4906146 * n), cr(-.9787684 * t + 1.9161415 * e + .033454 * n), cr(.0719453 * t - .2289914 * e + 1.4052427 * n), this.opacity);
	}
}));
function or(e) {
	return e > rr ? e ** (1 / 3) : e / nr + tr;
}
function sr(e) {
	return e > W ? e * e * e : nr * (e - tr);
}
function cr(e) {
	return 255 * (e <= .0031308 ? 12.92 * e : 1.055 * e ** (1 / 2.4) - .055);
}
function lr(e) {
	return (e /= 255) <= .04045 ? e / 12.92 : ((e + .055) / 1.055) ** 2.4;
}
function ur(e) {
	if (e instanceof K) return new K(e.h, e.c, e.l, e.opacity);
	if (e instanceof G || (e = ir(e)), e.a === 0 && e.b === 0) return new K(NaN, 0 < e.l && e.l < 100 ? 0 : NaN, e.l, e.opacity);
	var t = Math.atan2(e.b, e.a) * Xn;
	return new K(t < 0 ? t + 360 : t, Math.sqrt(e.a * e.a + e.b * e.b), e.l, e.opacity);
}
function dr(e, t, n, r) {
	return arguments.length === 1 ? ur(e) : new K(e, t, n, r ?? 1);
}
function K(e, t, n, r) {
	this.h = +e, this.c = +t, this.l = +n, this.opacity = +r;
}
function fr(e) {
	if (isNaN(e.h)) return new G(e.l, 0, 0, e.opacity);
	var t = e.h * Yn;
	return new G(e.l, Math.cos(t) * e.c, Math.sin(t) * e.c, e.opacity);
}
M(K, dr, N(P, {
	brighter(e) {
		return new K(this.h, this.c, this.l + Zn * (e ?? 1), this.opacity);
	},
	darker(e) {
		return new K(this.h, this.c, this.l - Zn * (e ?? 1), this.opacity);
	},
	rgb() {
		return fr(this).rgb();
	}
}));
var pr = -.14861, mr = 1.78277, hr = -.29227, gr = -.90649, q = 1.97294, _r = q * gr, vr = q * mr, yr = mr * hr - gr * pr;
function br(e) {
	if (e instanceof J) return new J(e.h, e.s, e.l, e.opacity);
	e instanceof B || (e = Ln(e));
	var t = e.r / 255, n = e.g / 255, r = e.b / 255, i = (yr * r + _r * t - vr * n) / (yr + _r - vr), a = r - i, o = (q * (n - i) - hr * a) / gr, s = Math.sqrt(o * o + a * a) / (q * i * (1 - i)), c = s ? Math.atan2(o, a) * Xn - 120 : NaN;
	return new J(c < 0 ? c + 360 : c, s, i, e.opacity);
}
function xr(e, t, n, r) {
	return arguments.length === 1 ? br(e) : new J(e, t, n, r ?? 1);
}
function J(e, t, n, r) {
	this.h = +e, this.s = +t, this.l = +n, this.opacity = +r;
}
M(J, xr, N(P, {
	brighter(e) {
		return e = e == null ? I : I ** +e, new J(this.h, this.s, this.l * e, this.opacity);
	},
	darker(e) {
		return e = e == null ? F : F ** +e, new J(this.h, this.s, this.l * e, this.opacity);
	},
	rgb() {
		var e = isNaN(this.h) ? 0 : (this.h + 120) * Yn, t = +this.l, n = isNaN(this.s) ? 0 : this.s * t * (1 - t), r = Math.cos(e), i = Math.sin(e);
		return new B(255 * (t + n * (pr * r + mr * i)), 255 * (t + n * (hr * r + gr * i)), 255 * (t + q * r * n), this.opacity);
	}
}));
var Sr = (e) => () => e;
function Cr(e, t) {
	return function(n) {
		return e + n * t;
	};
}
function wr(e, t, n) {
	return e **= +n, t = t ** +n - e, n = 1 / n, function(r) {
		return (e + r * t) ** +n;
	};
}
function Tr(e, t) {
	var n = t - e;
	return n ? Cr(e, n > 180 || n < -180 ? n - 360 * Math.round(n / 360) : n) : Sr(isNaN(e) ? t : e);
}
function Er(e) {
	return (e = +e) == 1 ? Y : function(t, n) {
		return n - t ? wr(t, n, e) : Sr(isNaN(t) ? n : t);
	};
}
function Y(e, t) {
	var n = t - e;
	return n ? Cr(e, n) : Sr(isNaN(e) ? t : e);
}
var Dr = (function e(t) {
	var n = Er(t);
	function r(e, t) {
		var r = n((e = Rn(e)).r, (t = Rn(t)).r), i = n(e.g, t.g), a = n(e.b, t.b), o = Y(e.opacity, t.opacity);
		return function(t) {
			return e.r = r(t), e.g = i(t), e.b = a(t), e.opacity = o(t), e + "";
		};
	}
	return r.gamma = e, r;
})(1);
function Or(e, t) {
	t ||= [];
	var n = e ? Math.min(t.length, e.length) : 0, r = t.slice(), i;
	return function(a) {
		for (i = 0; i < n; ++i) r[i] = e[i] * (1 - a) + t[i] * a;
		return r;
	};
}
function kr(e) {
	return ArrayBuffer.isView(e) && !(e instanceof DataView);
}
function Ar(e, t) {
	for (var n = t ? t.length : 0, r = e ? Math.min(n, e.length) : 0, i = Array(r), a = Array(n), o = 0; o < r; ++o) i[o] = zr(e[o], t[o]);
	for (; o < n; ++o) a[o] = t[o];
	return function(e) {
		for (o = 0; o < r; ++o) a[o] = i[o](e);
		return a;
	};
}
function jr(e, t) {
	var n = /* @__PURE__ */ new Date();
	return e = +e, t = +t, function(r) {
		return n.setTime(e * (1 - r) + t * r), n;
	};
}
function Mr(e, t) {
	return e = +e, t = +t, function(n) {
		return e * (1 - n) + t * n;
	};
}
function Nr(e, t) {
	var n = {}, r = {}, i;
	for (i in typeof e == "object" && e || (e = {}), typeof t == "object" && t || (t = {}), t) i in e ? n[i] = zr(e[i], t[i]) : r[i] = t[i];
	return function(e) {
		for (i in n) r[i] = n[i](e);
		return r;
	};
}
var Pr = /[-+]?(?:\d+\.?\d*|\.?\d+)(?:[eE][-+]?\d+)?/g, Fr = new RegExp(Pr.source, "g");
function Ir(e) {
	return function() {
		return e;
	};
}
function Lr(e) {
	return function(t) {
		return e(t) + "";
	};
}
function Rr(e, t) {
	var n = Pr.lastIndex = Fr.lastIndex = 0, r, i, a, o = -1, s = [], c = [];
	for (e += "", t += ""; (r = Pr.exec(e)) && (i = Fr.exec(t));) (a = i.index) > n && (a = t.slice(n, a), s[o] ? s[o] += a : s[++o] = a), (r = r[0]) === (i = i[0]) ? s[o] ? s[o] += i : s[++o] = i : (s[++o] = null, c.push({
		i: o,
		x: Mr(r, i)
	})), n = Fr.lastIndex;
	return n < t.length && (a = t.slice(n), s[o] ? s[o] += a : s[++o] = a), s.length < 2 ? c[0] ? Lr(c[0].x) : Ir(t) : (t = c.length, function(e) {
		for (var n = 0, r; n < t; ++n) s[(r = c[n]).i] = r.x(e);
		return s.join("");
	});
}
function zr(e, t) {
	var n = typeof t, r;
	return t == null || n === "boolean" ? Sr(t) : (n === "number" ? Mr : n === "string" ? (r = z(t)) ? (t = r, Dr) : Rr : t instanceof z ? Dr : t instanceof Date ? jr : kr(t) ? Or : Array.isArray(t) ? Ar : typeof t.valueOf != "function" && typeof t.toString != "function" || isNaN(t) ? Nr : Mr)(e, t);
}
function Br(e, t) {
	return e = +e, t = +t, function(n) {
		return Math.round(e * (1 - n) + t * n);
	};
}
var Vr = 1e-12;
function Hr(e) {
	return ((e = Math.exp(e)) + 1 / e) / 2;
}
function Ur(e) {
	return ((e = Math.exp(e)) - 1 / e) / 2;
}
function Wr(e) {
	return ((e = Math.exp(2 * e)) - 1) / (e + 1);
}
(function e(t, n, r) {
	function i(e, i) {
		var a = e[0], o = e[1], s = e[2], c = i[0], l = i[1], u = i[2], d = c - a, f = l - o, p = d * d + f * f, m, h;
		if (p < Vr) h = Math.log(u / s) / t, m = function(e) {
			return [
				a + e * d,
				o + e * f,
				s * Math.exp(t * e * h)
			];
		};
		else {
			var g = Math.sqrt(p), _ = (u * u - s * s + r * p) / (2 * s * n * g), v = (u * u - s * s - r * p) / (2 * u * n * g), y = Math.log(Math.sqrt(_ * _ + 1) - _);
			h = (Math.log(Math.sqrt(v * v + 1) - v) - y) / t, m = function(e) {
				var r = e * h, i = Hr(y), c = s / (n * g) * (i * Wr(t * r + y) - Ur(y));
				return [
					a + c * d,
					o + c * f,
					s * i / Hr(t * r + y)
				];
			};
		}
		return m.duration = Math.abs(h) * 1e3 * t / Math.SQRT2, m;
	}
	return i.rho = function(t) {
		var n = Math.max(.001, +t), r = n * n;
		return e(n, r, r * r);
	}, i;
})(Math.SQRT2, 2, 4);
function Gr(e) {
	return (function t(n) {
		n = +n;
		function r(t, r) {
			var i = e((t = xr(t)).h, (r = xr(r)).h), a = Y(t.s, r.s), o = Y(t.l, r.l), s = Y(t.opacity, r.opacity);
			return function(e) {
				return t.h = i(e), t.s = a(e), t.l = o(e ** +n), t.opacity = s(e), t + "";
			};
		}
		return r.gamma = t, r;
	})(1);
}
Gr(Tr), Gr(Y);
// node_modules/d3-format/dist/d3-format.mjs
function Kr(e) {
	return Math.abs(e = Math.round(e)) >= 1e21 ? e.toLocaleString("en").replace(/,/g, "") : e.toString(10);
}
function qr(e, t) {
	if (!isFinite(e) || e === 0) return null;
	var n = (e = t ? e.toExponential(t - 1) : e.toExponential()).indexOf("e"), r = e.slice(0, n);
	return [r.length > 1 ? r[0] + r.slice(2) : r, +e.slice(n + 1)];
}
function X(e) {
	return e = qr(Math.abs(e)), e ? e[1] : NaN;
}
function Jr(e, t) {
	return function(n, r) {
		for (var i = n.length, a = [], o = 0, s = e[0], c = 0; i > 0 && s > 0 && (c + s + 1 > r && (s = Math.max(1, r - c)), a.push(n.substring(i -= s, i + s)), !((c += s + 1) > r));) s = e[o = (o + 1) % e.length];
		return a.reverse().join(t);
	};
}
function Yr(e) {
	return function(t) {
		return t.replace(/[0-9]/g, function(t) {
			return e[+t];
		});
	};
}
var Xr = /^(?:(.)?([<>=^]))?([+\-( ])?([$#])?(0)?(\d+)?(,)?(\.\d+)?(~)?([a-z%])?$/i;
function Zr(e) {
	if (!(t = Xr.exec(e))) throw Error("invalid format: " + e);
	var t;
	return new Qr({
		fill: t[1],
		align: t[2],
		sign: t[3],
		symbol: t[4],
		zero: t[5],
		width: t[6],
		comma: t[7],
		precision: t[8] && t[8].slice(1),
		trim: t[9],
		type: t[10]
	});
}
Zr.prototype = Qr.prototype;
function Qr(e) {
	this.fill = e.fill === void 0 ? " " : e.fill + "", this.align = e.align === void 0 ? ">" : e.align + "", this.sign = e.sign === void 0 ? "-" : e.sign + "", this.symbol = e.symbol === void 0 ? "" : e.symbol + "", this.zero = !!e.zero, this.width = e.width === void 0 ? void 0 : +e.width, this.comma = !!e.comma, this.precision = e.precision === void 0 ? void 0 : +e.precision, this.trim = !!e.trim, this.type = e.type === void 0 ? "" : e.type + "";
}
Qr.prototype.toString = function() {
	return this.fill + this.align + this.sign + this.symbol + (this.zero ? "0" : "") + (this.width === void 0 ? "" : Math.max(1, this.width | 0)) + (this.comma ? "," : "") + (this.precision === void 0 ? "" : "." + Math.max(0, this.precision | 0)) + (this.trim ? "~" : "") + this.type;
};
function $r(e) {
	e: for (var t = e.length, n = 1, r = -1, i; n < t; ++n) switch (e[n]) {
		case ".":
			r = i = n;
			break;
		case "0":
			r === 0 && (r = n), i = n;
			break;
		default:
			if (!+e[n]) break e;
			r > 0 && (r = 0);
	}
	return r > 0 ? e.slice(0, r) + e.slice(i + 1) : e;
}
var ei;
function ti(e, t) {
	var n = qr(e, t);
	if (!n) return ei = void 0, e.toPrecision(t);
	var r = n[0], i = n[1], a = i - (ei = Math.max(-8, Math.min(8, Math.floor(i / 3))) * 3) + 1, o = r.length;
	return a === o ? r : a > o ? r + Array(a - o + 1).join("0") : a > 0 ? r.slice(0, a) + "." + r.slice(a) : "0." + Array(1 - a).join("0") + qr(e, Math.max(0, t + a - 1))[0];
}
function ni(e, t) {
	var n = qr(e, t);
	if (!n) return e + "";
	var r = n[0], i = n[1];
	return i < 0 ? "0." + Array(-i).join("0") + r : r.length > i + 1 ? r.slice(0, i + 1) + "." + r.slice(i + 1) : r + Array(i - r.length + 2).join("0");
}
var ri = {
	"%": (e, t) => (e * 100).toFixed(t),
	b: (e) => Math.round(e).toString(2),
	c: (e) => e + "",
	d: Kr,
	e: (e, t) => e.toExponential(t),
	f: (e, t) => e.toFixed(t),
	g: (e, t) => e.toPrecision(t),
	o: (e) => Math.round(e).toString(8),
	p: (e, t) => ni(e * 100, t),
	r: ni,
	s: ti,
	X: (e) => Math.round(e).toString(16).toUpperCase(),
	x: (e) => Math.round(e).toString(16)
};
function ii(e) {
	return e;
}
var ai = Array.prototype.map, oi = [
	"y",
	"z",
	"a",
	"f",
	"p",
	"n",
	"µ",
	"m",
	"",
	"k",
	"M",
	"G",
	"T",
	"P",
	"E",
	"Z",
	"Y"
];
function si(e) {
	var t = e.grouping === void 0 || e.thousands === void 0 ? ii : Jr(ai.call(e.grouping, Number), e.thousands + ""), n = e.currency === void 0 ? "" : e.currency[0] + "", r = e.currency === void 0 ? "" : e.currency[1] + "", i = e.decimal === void 0 ? "." : e.decimal + "", a = e.numerals === void 0 ? ii : Yr(ai.call(e.numerals, String)), o = e.percent === void 0 ? "%" : e.percent + "", s = e.minus === void 0 ? "−" : e.minus + "", c = e.nan === void 0 ? "NaN" : e.nan + "";
	function l(e, l) {
		e = Zr(e);
		var u = e.fill, d = e.align, f = e.sign, p = e.symbol, m = e.zero, h = e.width, g = e.comma, _ = e.precision, v = e.trim, y = e.type;
		y === "n" ? (g = !0, y = "g") : ri[y] || (_ === void 0 && (_ = 12), v = !0, y = "g"), (m || u === "0" && d === "=") && (m = !0, u = "0", d = "=");
		var b = (l && l.prefix !== void 0 ? l.prefix : "") + (p === "$" ? n : p === "#" && /[boxX]/.test(y) ? "0" + y.toLowerCase() : ""), x = (p === "$" ? r : /[%p]/.test(y) ? o : "") + (l && l.suffix !== void 0 ? l.suffix : ""), S = ri[y], C = /[defgprs%]/.test(y);
		_ = _ === void 0 ? 6 : /[gprs]/.test(y) ? Math.max(1, Math.min(21, _)) : Math.max(0, Math.min(20, _));
		function w(e) {
			var n = b, r = x, o, l, p;
			if (y === "c") r = S(e) + r, e = "";
			else {
				e = +e;
				var w = e < 0 || 1 / e < 0;
				if (e = isNaN(e) ? c : S(Math.abs(e), _), v && (e = $r(e)), w && +e == 0 && f !== "+" && (w = !1), n = (w ? f === "(" ? f : s : f === "-" || f === "(" ? "" : f) + n, r = (y === "s" && !isNaN(e) && ei !== void 0 ? oi[8 + ei / 3] : "") + r + (w && f === "(" ? ")" : ""), C) {
					for (o = -1, l = e.length; ++o < l;) if (p = e.charCodeAt(o), 48 > p || p > 57) {
						r = (p === 46 ? i + e.slice(o + 1) : e.slice(o)) + r, e = e.slice(0, o);
						break;
					}
				}
			}
			g && !m && (e = t(e, 1e400));
			var T = n.length + e.length + r.length, E = T < h ? Array(h - T + 1).join(u) : "";
			switch (g && m && (e = t(E + e, E.length ? h - r.length : 1e400), E = ""), d) {
				case "<":
					e = n + e + r + E;
					break;
				case "=":
					e = n + E + e + r;
					break;
				case "^":
					e = E.slice(0, T = E.length >> 1) + n + e + r + E.slice(T);
					break;
				default: e = E + n + e + r;
			}
			return a(e);
		}
		return w.toString = function() {
			return e + "";
		}, w;
	}
	function u(e, t) {
		var n = Math.max(-8, Math.min(8, Math.floor(X(t) / 3))) * 3, r = 10 ** -n, i = l((e = Zr(e), e.type = "f", e), { suffix: oi[8 + n / 3] });
		return function(e) {
			return i(r * e);
		};
	}
	return {
		format: l,
		formatPrefix: u
	};
}
var ci, li, ui;
di({
	thousands: ",",
	grouping: [3],
	currency: ["$", ""]
});
function di(e) {
	return ci = si(e), li = ci.format, ui = ci.formatPrefix, ci;
}
function fi(e) {
	return Math.max(0, -X(Math.abs(e)));
}
function pi(e, t) {
	return Math.max(0, Math.max(-8, Math.min(8, Math.floor(X(t) / 3))) * 3 - X(Math.abs(e)));
}
function mi(e, t) {
	return e = Math.abs(e), t = Math.abs(t) - e, Math.max(0, X(t) - X(e)) + 1;
}
// node_modules/d3-scale/dist/d3-scale.mjs
function hi(e, t) {
	switch (arguments.length) {
		case 0: break;
		case 1:
			this.range(e);
			break;
		default: this.range(t).domain(e);
	}
	return this;
}
function gi(e) {
	return function() {
		return e;
	};
}
function _i(e) {
	return +e;
}
var vi = [0, 1];
function Z(e) {
	return e;
}
function yi(e, t) {
	return (t -= e = +e) ? function(n) {
		return (n - e) / t;
	} : gi(isNaN(t) ? NaN : .5);
}
function bi(e, t) {
	var n;
	return e > t && (n = e, e = t, t = n), function(n) {
		return Math.max(e, Math.min(t, n));
	};
}
function xi(e, t, n) {
	var r = e[0], i = e[1], a = t[0], o = t[1];
	return i < r ? (r = yi(i, r), a = n(o, a)) : (r = yi(r, i), a = n(a, o)), function(e) {
		return a(r(e));
	};
}
function Si(e, t, n) {
	var r = Math.min(e.length, t.length) - 1, i = Array(r), a = Array(r), o = -1;
	for (e[r] < e[0] && (e = e.slice().reverse(), t = t.slice().reverse()); ++o < r;) i[o] = yi(e[o], e[o + 1]), a[o] = n(t[o], t[o + 1]);
	return function(t) {
		var n = mn(e, t, 1, r) - 1;
		return a[n](i[n](t));
	};
}
function Ci(e, t) {
	return t.domain(e.domain()).range(e.range()).interpolate(e.interpolate()).clamp(e.clamp()).unknown(e.unknown());
}
function wi() {
	var e = vi, t = vi, n = zr, r, i, a, o = Z, s, c, l;
	function u() {
		var n = Math.min(e.length, t.length);
		return o !== Z && (o = bi(e[0], e[n - 1])), s = n > 2 ? Si : xi, c = l = null, d;
	}
	function d(i) {
		return i == null || isNaN(i = +i) ? a : (c ||= s(e.map(r), t, n))(r(o(i)));
	}
	return d.invert = function(n) {
		return o(i((l ||= s(t, e.map(r), Mr))(n)));
	}, d.domain = function(t) {
		return arguments.length ? (e = Array.from(t, _i), u()) : e.slice();
	}, d.range = function(e) {
		return arguments.length ? (t = Array.from(e), u()) : t.slice();
	}, d.rangeRound = function(e) {
		return t = Array.from(e), n = Br, u();
	}, d.clamp = function(e) {
		return arguments.length ? (o = e ? !0 : Z, u()) : o !== Z;
	}, d.interpolate = function(e) {
		return arguments.length ? (n = e, u()) : n;
	}, d.unknown = function(e) {
		return arguments.length ? (a = e, d) : a;
	}, function(e, t) {
		return r = e, i = t, u();
	};
}
function Ti() {
	return wi()(Z, Z);
}
function Ei(e, t, n, r) {
	var i = xn(e, t, n), a;
	switch (r = Zr(r ?? ",f"), r.type) {
		case "s":
			var o = Math.max(Math.abs(e), Math.abs(t));
			return r.precision == null && !isNaN(a = pi(i, o)) && (r.precision = a), ui(r, o);
		case "":
		case "e":
		case "g":
		case "p":
		case "r":
			r.precision == null && !isNaN(a = mi(i, Math.max(Math.abs(e), Math.abs(t)))) && (r.precision = a - (r.type === "e"));
			break;
		case "f":
		case "%": r.precision == null && !isNaN(a = fi(i)) && (r.precision = a - (r.type === "%") * 2);
	}
	return li(r);
}
function Di(e) {
	var t = e.domain;
	return e.ticks = function(e) {
		var n = t();
		return yn(n[0], n[n.length - 1], e ?? 10);
	}, e.tickFormat = function(e, n) {
		var r = t();
		return Ei(r[0], r[r.length - 1], e ?? 10, n);
	}, e.nice = function(n) {
		n ??= 10;
		var r = t(), i = 0, a = r.length - 1, o = r[i], s = r[a], c, l, u = 10;
		for (s < o && (l = o, o = s, s = l, l = i, i = a, a = l); u-- > 0;) {
			if (l = bn(o, s, n), l === c) return r[i] = o, r[a] = s, t(r);
			if (l > 0) o = Math.floor(o / l) * l, s = Math.ceil(s / l) * l;
			else if (l < 0) o = Math.ceil(o * l) / l, s = Math.floor(s * l) / l;
			else break;
			c = l;
		}
		return e;
	}, e;
}
function Oi() {
	var e = Ti();
	return e.copy = function() {
		return Ci(e, Oi());
	}, hi.apply(e, arguments), Di(e);
}
// src/timeline.js
var ki = 26, Ai = 16, ji = 22, Q = 20, Mi = 40, Ni = 15, Pi = 56, Fi = 180, $ = 16, Ii = 4, Li = 10, Ri = 40, zi = 16, Bi = 3, Vi = [
	[
		.001,
		"ms",
		0
	],
	[
		1,
		"s",
		.2
	],
	[
		60,
		"min",
		120
	],
	[
		3600,
		"h",
		7200
	],
	[
		86400,
		"days",
		172800
	]
];
function Hi(e) {
	let { data: t, parentElement: n, setTriggerValue: r } = e, i = n.querySelector(":scope > .tl"), a = !i;
	a && (i = Ui(n));
	let o = i.__view;
	o.report = r, o.data = t, a ? setTimeout(() => qi(o), 0) : qi(o);
}
function Ui(e) {
	let t = O(e).append("div").attr("class", "tl"), n = t.append("svg").attr("class", "tl-chart"), r = `tl-clip-${Math.random().toString(36).slice(2)}`;
	n.append("clipPath").attr("id", r).append("rect"), n.append("g").attr("class", "tl-lanes"), n.append("g").attr("class", "tl-axis"), n.append("text").attr("class", "tl-axis-title"), n.append("rect").attr("class", "tl-grab");
	let i = n.append("g").attr("class", "tl-plot").attr("clip-path", `url(#${r})`);
	i.append("rect").attr("class", "tl-ground"), i.append("g").attr("class", "tl-marks"), i.append("rect").attr("class", "tl-range").style("display", "none"), n.append("g").attr("class", "tl-breaks");
	let a = t.append("div").attr("class", "tl-legend"), o = t.append("div").attr("class", "tl-nodes").append("table");
	o.append("thead").append("tr"), o.append("tbody");
	let s = {
		root: t,
		svg: n,
		plot: i,
		legend: a,
		nodes: o,
		tooltip: t.append("div").attr("class", "tl-tooltip").attr("role", "tooltip").style("display", "none"),
		clip: r,
		data: null,
		report: null,
		width: 0
	};
	return t.node().__view = s, new ResizeObserver(() => {
		let e = t.node().clientWidth;
		s.width && e && e !== s.width && qi(s);
	}).observe(t.node()), Wi(s), t.node();
}
function Wi(e) {
	let t = e.svg, n = e.plot.select(".tl-range"), r = null, i = (t) => Math.min(Math.max(t, 0), e.plotWidth);
	t.on("pointerdown", (n) => {
		if (n.button !== 0) return;
		let [a, o] = Gi(e, n);
		if (!Ki(e, a, o)) return;
		let s = n.target.closest?.(".tl-break")?.__fold ?? null;
		r = {
			x: i(a),
			row: n.target.__row ?? null,
			fold: s,
			moved: !1
		}, t.node().setPointerCapture(n.pointerId);
	}), t.on("pointermove", (t) => {
		if (!r) return;
		let a = i(Gi(e, t)[0]);
		if (!r.moved && Math.abs(a - r.x) < Ii) return;
		r.moved = !0, e.tooltip.style("display", "none");
		let [o, s] = [Math.min(a, r.x), Math.max(a, r.x)];
		n.style("display", null).attr("x", o).attr("width", s - o).attr("y", 0).attr("height", e.plotHeight);
	}), t.on("pointerup", (t) => {
		if (!r) return;
		let a = r;
		if (r = null, n.style("display", "none"), a.moved) {
			let n = i(Gi(e, t)[0]), [r, o] = [Math.min(n, a.x), Math.max(n, a.x)];
			o - r >= Ii && e.report("zoom", [e.x.invert(r), e.x.invert(o)]);
		} else a.row ? e.report("pick", a.row.checkpoint) : a.fold && e.report("unfold", !0);
	}), t.on("pointercancel", () => {
		r = null, n.style("display", "none");
	}), e.pressing = () => r !== null;
}
function Gi(e, t) {
	let n = e.plot.select(".tl-ground").node().getBoundingClientRect();
	return [t.clientX - n.left, t.clientY - n.top];
}
function Ki(e, t, n) {
	return t >= -10 && t <= e.plotWidth + $ && n >= -20 && n <= e.plotHeight + 24;
}
function qi(e) {
	let { data: t } = e, n = e.root.node().clientWidth || 600;
	e.width = n;
	let r = t.lanes, i = Math.min(Math.max(ua(e, r) + 12, Pi), Math.min(Fi, n * .3)), a = Math.max(n - i - $, 60), o = Math.max(r.length, 1) * ki;
	e.plotWidth = a, e.plotHeight = o;
	let s = t.span ?? [0, Math.max(t.end, .001)], c = Oi().domain(s).range([0, a]);
	t.span || c.nice(), e.x = c;
	let l = Xi(e, t.axis, n), u = Q + o + Mi + (l.length - 1) * Ni;
	e.svg.attr("width", n).attr("height", u), e.svg.select(`#${e.clip} rect`).attr("width", a).attr("height", o), e.svg.select(".tl-grab").attr("x", i - Li).attr("y", 0).attr("width", a + Li + $).attr("height", Q + o + 24), e.plot.attr("transform", `translate(${i},${Q})`), e.plot.select(".tl-ground").attr("width", a).attr("height", o), e.svg.select(".tl-lanes").attr("transform", `translate(0,${Q})`).selectAll("text").data(r).join("text").attr("x", i - 8).attr("y", (e, t) => t * ki + ki / 2).attr("dy", "0.35em").attr("text-anchor", "end").text((e) => e).each(function(e) {
		fa(this, e, i - 12);
	}).selectAll("title").data((e) => [e]).join("title").text((e) => e), Yi(e, i, l), Ji(e), na(e, i), pa(e), oa(e);
}
function Ji(e) {
	let { data: t, x: n } = e, r = new Map(t.kinds.map(([e, t]) => [e, t])), i = new Map(t.lanes.map((e, t) => [e, t]));
	e.plot.select(".tl-marks").selectAll("rect").data(t.rows).join("rect").attr("class", (e) => sa(e, t.selected)).attr("x", (e) => e.kind === t.instant ? n(e.from) - 1.5 : n(e.from)).attr("width", (e) => e.kind === t.instant ? 3 : Math.max(n(e.to) - n(e.from), 2)).attr("y", (e) => i.get(e.lane) * ki + (ki - (e.kind === t.instant ? ji : Ai)) / 2).attr("height", (e) => e.kind === t.instant ? ji : Ai).attr("rx", (e) => e.kind === t.instant ? 0 : 2).attr("fill", (e) => r.get(e.what)).attr("role", "img").attr("aria-label", (e) => ca(e).map(([e, t]) => `${e}: ${t}`).join("; ")).each(function(e) {
		this.__row = e;
	}).on("mouseenter", (t, n) => {
		e.pressing() || la(e, t, n);
	}).on("mouseleave", () => e.tooltip.style("display", "none"));
}
function Yi(e, t, n) {
	let { x: r, plotWidth: i, plotHeight: a } = e, o = Zi(e, r, e.data.folds);
	e.svg.select(".tl-axis").attr("transform", `translate(${t},${Q + a})`).call(sn(r).tickValues(o.map((e) => e.at)).tickFormat((e, t) => o[t].label).tickSizeOuter(0));
	let s = Math.max(...n.map((t) => da(e, t))), c = Math.min(Math.max(t + i / 2, s / 2), e.width - s / 2);
	e.svg.select(".tl-axis-title").attr("x", c).attr("y", Q + a + Mi - 6).attr("text-anchor", "middle").selectAll("tspan").data(n).join("tspan").attr("x", c).attr("dy", (e, t) => t ? Ni : 0).text((e) => e);
}
function Xi(e, t, n) {
	let r = t.indexOf(" (");
	return r < 0 || da(e, t) <= n - 8 ? [t] : [t.slice(0, r), t.slice(r + 1)];
}
function Zi(e, t, n) {
	let [r, i] = t.domain(), a = Vi.reduce((e, t) => i - r >= t[2] ? t : e), o = [];
	for (let t = Math.max(Math.floor(e.plotWidth / Ri), 2); t >= 1; --t) o.push(ta((i - r) / a[0], t) * a[0]);
	let s = /* @__PURE__ */ new Map(), c = (t) => (s.has(t) || s.set(t, da(e, t)), s.get(t)), l = (n, r) => Qi(n, r, a).map((e) => ({
		...e,
		px: t(e.at),
		width: c(e.label)
	})).filter((t) => t.px + t.width / 2 <= e.plotWidth + $), u = $i(r, i, n).flatMap((e) => {
		let t = [];
		for (let n of o) if (t = l(e, n), !ea(t)) break;
		return t;
	}), d = [];
	for (let e of u) d.length && ea([d[d.length - 1], e]) || d.push(e);
	return d;
}
function Qi([e, t, n], r, i) {
	let [a, o] = i[1] === "ms" && e + n >= 1 ? Vi[1] : i, s = Math.max(0, -Math.floor(Math.log10(r / a) + 1e-9)), c = new Intl.NumberFormat("en-US", {
		minimumFractionDigits: s,
		maximumFractionDigits: s
	}), l = [], u = Math.floor((t + n) / r + 1e-9);
	for (let t = Math.ceil((e + n) / r - 1e-9); t <= u; t += 1) {
		let e = t * r;
		l.push({
			at: e - n,
			label: `${c.format(e / a || 0)} ${o}`
		});
	}
	return l;
}
function $i(e, t, n) {
	let r = [], i = e, a = 0;
	for (let e of [...n].sort((e, t) => e.from - t.from)) e.from > i && i < t && r.push([
		i,
		Math.min(e.from, t),
		a
	]), i = Math.max(i, e.to), a += e.cut;
	return i < t && r.push([
		i,
		t,
		a
	]), r;
}
function ea(e) {
	for (let t = 1; t < e.length; t += 1) {
		let [n, r] = [e[t - 1], e[t]];
		if (r.px - n.px < (n.width + r.width) / 2 + zi) return !0;
	}
	return !1;
}
function ta(e, t) {
	let n = Math.max(e, 1e-9) / t, r = 10 ** Math.floor(Math.log10(n)), i = n / r;
	return (i >= Math.sqrt(50) ? 10 : i >= Math.sqrt(10) ? 5 : i >= Math.sqrt(2) ? 2 : 1) * r;
}
function na(e, t) {
	let { x: n, plotWidth: r, plotHeight: i } = e, a = e.data.folds.filter((e) => n(e.at) >= 0 && n(e.at) <= r), o = e.svg.select(".tl-breaks").attr("transform", `translate(${t},${Q})`).selectAll("g.tl-break").data(a).join((e) => {
		let t = e.append("g").attr("class", "tl-break").attr("role", "button").attr("tabindex", 0);
		return t.append("path").attr("class", "tl-break-fill"), t.append("path").attr("class", "tl-break-edge tl-break-left"), t.append("path").attr("class", "tl-break-edge tl-break-right"), t.append("text").attr("class", "tl-break-label"), t.append("title"), t;
	}).each(function(e) {
		this.__fold = e;
	}).attr("aria-label", (e) => `${e.label}: click to draw it at its real length`).on("keydown", (t) => {
		(t.key === "Enter" || t.key === " ") && (t.preventDefault(), e.report("unfold", !0));
	}), s = i + 6;
	o.each(function(e) {
		let t = O(this), r = n(e.at), i = ra(r - Bi, 0, s), a = ra(r + Bi, 0, s);
		t.select(".tl-break-left").attr("d", `M${i.join("L")}`), t.select(".tl-break-right").attr("d", `M${a.join("L")}`), t.select(".tl-break-fill").attr("d", ia(i, a)), t.select("title").text(`${e.label}: click to draw it at its real length`);
	}), aa(e, o);
}
function ra(e, t, n) {
	let r = [];
	for (let i = t, a = 0; i < n + 4; i += 4, a += 1) r.push([e + (a % 2 ? 2 : -2), Math.min(i, n)]);
	return r;
}
function ia(e, t) {
	return `M${[...e, ...[...t].reverse()].join("L")}Z`;
}
function aa(e, t) {
	let n = -1e400;
	t.select(".tl-break-label").each(function(t) {
		let r = O(this), i = e.plotWidth + $;
		for (let a of [
			t.label,
			t.label.replace(/ (idle|wait) folded$/, ""),
			""
		]) {
			r.text(a);
			let o = this.getComputedTextLength(), s = Math.min(Math.max(e.x(t.at) - o / 2, 0), i - o);
			if (!a || s >= n + zi) {
				r.attr("x", s).attr("y", -6), n = a ? s + o : n;
				break;
			}
		}
	});
}
function oa(e) {
	let { columns: t, numeric: n, rows: r } = e.data.nodes, i = (e, t) => n[t] ? "tl-number" : null;
	e.nodes.select("thead tr").selectAll("th").data(t).join("th").attr("class", i).text((e) => e), e.nodes.select("tbody").selectAll("tr").data(r).join("tr").selectAll("td").data((e) => e).join("td").attr("class", i).text((e) => String(e));
}
function sa(e, t) {
	let n = ["tl-mark"];
	return e.slowest ? n.push("tl-slowest") : e.dashed && n.push("tl-dashed"), e.checkpoint === t && n.push("tl-selected"), n.join(" ");
}
function ca(e) {
	return [
		["checkpoint", e.at],
		["node", e.lane],
		["what", e.what],
		["seconds", e.seconds.toFixed(3)],
		["note", e.note],
		["tokens in", e.tokens_in],
		["tokens out", e.tokens_out]
	];
}
function la(e, t, n) {
	Ot(e.tooltip, ca(n).filter(([, e]) => e !== ""), "tl-tooltip-key");
	let r = t.currentTarget.getBoundingClientRect(), i = e.root.node().getBoundingClientRect(), a = Math.min(Math.max(r.left - i.left, 0), Math.max(i.width - 320, 0));
	e.tooltip.style("display", null).style("left", `${a}px`).style("top", `${r.bottom - i.top + 4}px`);
}
function ua(e, t) {
	return Math.max(0, ...t.map((t) => da(e, t)));
}
function da(e, t) {
	let n = e.svg.append("text").attr("class", "tl-probe").text(t), r = n.node().getComputedTextLength();
	return n.remove(), r;
}
function fa(e, t, n) {
	if (e.getComputedTextLength() <= n) return;
	let r = t.length;
	for (; r > 1;) if (--r, e.textContent = `${t.slice(0, r)}…`, e.getComputedTextLength() <= n) return;
}
function pa(e) {
	let { data: t } = e, n = [
		...t.kinds.map(([e, t, n, r]) => ({
			name: e,
			fill: t,
			dashed: n,
			instant: r
		})),
		{
			name: "slowest steps",
			fill: "none",
			outline: "tl-slowest"
		},
		{
			name: "selected checkpoint",
			fill: "none",
			outline: "tl-selected"
		}
	];
	t.folds.length && n.push({
		name: "a long wait folded (click to unfold)",
		fold: !0
	}), kt(e.legend, n, "tl-legend-entry", [18, 14], (e, t) => {
		if (t.fold) {
			let [t, n] = [ra(6, 0, 14), ra(12, 0, 14)];
			e.append("path").attr("class", "tl-break-fill").attr("d", ia(t, n));
			for (let r of [t, n]) e.append("path").attr("class", "tl-break-edge").attr("d", `M${r.join("L")}`);
		} else t.instant ? e.append("rect").attr("x", 7.5).attr("y", 0).attr("width", 3).attr("height", 14).attr("fill", t.fill) : e.append("rect").attr("x", 1).attr("y", 2).attr("width", 16).attr("height", 10).attr("rx", 2).attr("fill", t.fill).attr("class", t.outline ?? (t.dashed ? "tl-dashed" : null));
	});
}
// src/index.js
var ma = {
	history_tree: Pt,
	timeline: Hi
};
function ha(e) {
	let t = ma[e.data?.drawing];
	if (!t) throw Error(`no drawing named ${e.data?.drawing}`);
	return t(e);
}
export { ha as default };
