/** The scheduler customizer against Spring Boot 3's Quartz API. <b>Internal to fenced.</b> */
@NullMarked
package dev.fenced.internal.spring.quartz.boot3;

import org.jspecify.annotations.NullMarked;
